#!/usr/bin/env node
import { run } from './index.js'

// A reader that stops early (`contracts inspect x | head`) closes the pipe: that is the end of the
// output, not an error to print a stack for.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
  throw error
})

process.exitCode = await run(process.argv.slice(2), {
  out: (text) => process.stdout.write(text + '\n'),
  err: (text) => process.stderr.write(text + '\n'),
})
