import { defineConfig } from 'vite'
import contracts from 'unplugin-contracts/vite'

// The app runs in Node, so it is built as an SSR bundle; a browser app needs nothing but `contracts()`.
export default defineConfig({
  root: import.meta.dirname,
  logLevel: 'warn',
  plugins: [contracts()],
  build: { ssr: 'src/main.ts', outDir: 'dist', emptyOutDir: true },
})
