/**
 * Who else may write a folder or file (src/core/file-trust.ts): world-writable always; group-writable
 * unless the group is this user's own (listed, no other member, no other account's primary group).
 */
import type { Stats } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { groupIsPrivate, othersMayWrite } from '../src/core/file-trust.js'

const group = ['# comment', 'root:x:0:', 'ssl-cert:x:103:postgres', 'dev:x:1000:', 'team:x:1001:dev', 'shared:x:1002:dev,ops', 'ops:x:1003:', ''].join('\n')
const passwd = [
  'root:x:0:0:root:/root:/bin/bash',
  'postgres:x:105:103::/var/lib/postgresql:/bin/sh',
  'dev:x:1000:1000::/home/dev:/bin/sh',
  'ops:x:1003:1003::/home/ops:/bin/sh',
  'svc:x:1004:1003::/srv:/bin/false',
].join('\n')
const as = (username: string, uid: number) => ({ group, passwd, username, uid })

describe('groupIsPrivate', () => {
  it("a user's own group (no members listed, no other account's primary group) is private", () => {
    expect(groupIsPrivate(1000, as('dev', 1000))).toBe(true)
    expect(groupIsPrivate(0, as('root', 0))).toBe(true)
  })

  it('a group listing only this user as a member is private', () => {
    expect(groupIsPrivate(1001, as('dev', 1000))).toBe(true)
  })

  it('a group with another member, or listing another user only, is not', () => {
    expect(groupIsPrivate(103, as('root', 0))).toBe(false)
    expect(groupIsPrivate(1002, as('dev', 1000))).toBe(false)
    expect(groupIsPrivate(1001, as('ops', 1003))).toBe(false)
  })

  it("a group that is another account's primary group is not, though no member is listed", () => {
    expect(groupIsPrivate(1003, as('ops', 1003))).toBe(false)
    expect(groupIsPrivate(1000, as('ops', 1003))).toBe(false)
  })

  it('a group the list does not name (a directory service may hold it) is not', () => {
    expect(groupIsPrivate(4242, as('dev', 1000))).toBe(false)
    expect(groupIsPrivate(0, { group: '', passwd, username: 'root', uid: 0 })).toBe(false)
  })
})

describe('othersMayWrite', () => {
  const stats = (mode: number, gid: number) => ({ mode, gid }) as Stats

  it.runIf(process.platform !== 'win32')('world-writable always; neither group- nor world-writable never', () => {
    expect(othersMayWrite(stats(0o40777, 0))).toBe(true)
    expect(othersMayWrite(stats(0o41777, 0))).toBe(true)
    expect(othersMayWrite(stats(0o40755, 0))).toBe(false)
    expect(othersMayWrite(stats(0o100644, 4242))).toBe(false)
  })

  it.runIf(process.platform !== 'win32')('group-writable: only when the system lists do not prove the group private (a group id no list names)', () => {
    // No system lists a group 2^31 - 2: nothing proves it private.
    expect(othersMayWrite(stats(0o40775, 2 ** 31 - 2))).toBe(true)
  })
})
