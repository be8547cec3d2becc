#!/usr/bin/env node
import { run } from './index.js'

// A reader that stops early (`contracts inspect x | head`) closes the pipe: that is the end of the
// output, not an error to print a stack for.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
  throw error
})

const status = await run(process.argv.slice(2), {
  out: (text) => process.stdout.write(text + '\n'),
  err: (text) => process.stderr.write(text + '\n'),
})
process.exitCode = status
// The command is done and its verdict final: the process ends once what it wrote is flushed, whatever
// handle a library left open. nats.js leaves the socket of a connection attempt that timed out (a
// server that accepts and never answers) open, and `nats provision` then printed its exit-3 sentence
// and ran on until killed.
await new Promise((resolve) => process.stdout.write('', resolve))
await new Promise((resolve) => process.stderr.write('', resolve))
process.exit(status)
