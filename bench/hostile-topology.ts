/** Hostile input families of the topology surface, timed at n and 10n by `bench/complexity.ts`. */
import type { Family } from './family.js'

export const families: Family[] = []
