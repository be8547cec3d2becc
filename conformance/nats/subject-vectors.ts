/** The shape of subject-vectors.json (computed by make_subject_vectors.py), for the tests that run it on each target. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

export interface SubjectVectors {
  channels: Array<{
    channel: string
    render: Array<{ params: Record<string, string>; subject: string | null }>
    parse: Array<{ subject: string; params: Record<string, string> | null }>
    filters: Array<{
      name: string
      render: Array<{ params: Record<string, string>; subject: string | null }>
      matches: Array<{ subject: string; matches: boolean }>
    }>
  }>
}

export const loadSubjectVectors = (): SubjectVectors => JSON.parse(readFileSync(join(import.meta.dirname, 'subject-vectors.json'), 'utf8'))
