import { defineConfig } from 'vite'
import contracts from 'unplugin-contracts/vite'

// The browser page (web/): the same contract, its topics listed and a request checked in the page.
// `npm run dev:payments-web` serves it with the dev loop (edit ../payments.spec.json, the page follows).
// The dev server logs at Vite's `info` level, so it prints the URL to open; a build only warnings.
export default defineConfig(({ command }) => ({
  root: `${import.meta.dirname}/web`,
  logLevel: command === 'serve' ? 'info' : 'warn',
  plugins: [contracts()],
  server: { host: '127.0.0.1' },
  build: { outDir: '../dist-web', emptyOutDir: true, target: 'es2022' },
}))
