/** The shared render/parse/filter vectors (subject-vectors.json, computed by make_subject_vectors.py) against the TypeScript runtime. */
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compile } from '../../src/index.js'
import { loadModule } from '../../test/helpers/load-module.js'
import { loadSubjectVectors } from './subject-vectors.js'

const here = import.meta.dirname
const vectors = loadSubjectVectors()

describe('subject-vectors.json against the TypeScript runtime', () => {
  it('every render, parse and filter vector', async () => {
    const result = await compile(join(here, 'subjects.asyncapi.json'))
    expect(result.diagnostics).toEqual([])
    const mod = await loadModule(result.code!, 'subject-vectors')
    let count = 0
    for (const c of vectors.channels) {
      const channel = mod.channels[c.channel]
      for (const v of c.render) {
        if (v.subject === null) expect(() => channel.subject.render(v.params), JSON.stringify(v)).toThrow()
        else expect(channel.subject.render(v.params)).toBe(v.subject)
        count++
      }
      for (const v of c.parse) {
        expect([v.subject, channel.subject.tryParse(v.subject) ?? null]).toEqual([v.subject, v.params])
        count++
      }
      for (const f of c.filters) {
        const filter = channel.filters[f.name]
        for (const v of f.render) {
          if (v.subject === null) expect(() => filter.render(v.params), JSON.stringify(v)).toThrow()
          else expect(filter.render(v.params)).toBe(v.subject)
          count++
        }
        for (const v of f.matches) {
          expect([f.name, v.subject, filter.matches(v.subject)]).toEqual([f.name, v.subject, v.matches])
          count++
        }
      }
    }
    expect(count).toBeGreaterThan(100)
  })

  it('make_subject_vectors.py --check recomputes the same vectors', () => {
    expect(execFileSync('python3', [join(here, 'make_subject_vectors.py'), '--check'], { encoding: 'utf8' })).toContain('subject-vectors.json: ok')
  })
})
