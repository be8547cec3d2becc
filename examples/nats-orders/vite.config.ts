import { defineConfig } from 'vite'
import contracts from 'unplugin-contracts/vite'

// Two small Node services, built as SSR bundles: nats.js stays an external dependency.
export default defineConfig({
  root: import.meta.dirname,
  logLevel: 'warn',
  plugins: [contracts()],
  build: {
    ssr: true,
    outDir: 'dist',
    emptyOutDir: true,
    rollupOptions: { input: { publisher: 'src/publisher.ts', fulfilment: 'src/fulfilment.ts' } },
  },
})
