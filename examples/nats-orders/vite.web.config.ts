import { defineConfig } from 'vite'
import contracts from 'unplugin-contracts/vite'

// The browser page (web/): the same contract and client, over nats-server's WebSocket listener.
// `npm run dev:nats-web` serves it; the dev server logs at Vite's `info` level, so it prints the URL
// to open; a build only warnings.
export default defineConfig(({ command }) => ({
  root: `${import.meta.dirname}/web`,
  logLevel: command === 'serve' ? 'info' : 'warn',
  plugins: [contracts()],
  server: { host: '127.0.0.1' },
  build: { outDir: '../dist-web', emptyOutDir: true, target: 'es2022' },
}))
