import { defineConfig } from 'vite'
import contracts from 'unplugin-contracts/vite'

// The browser page (web/): the same contract and client, over nats-server's WebSocket listener.
export default defineConfig({
  root: `${import.meta.dirname}/web`,
  logLevel: 'warn',
  plugins: [contracts()],
  build: { outDir: '../dist-web', emptyOutDir: true, target: 'es2022' },
})
