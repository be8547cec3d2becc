/**
 * Whether a user other than this process's may write a file or folder (POSIX modes; Windows has
 * none here): what the persistent cache asks of its folder and its entries before it reads them.
 *
 * World-writable is always someone else's. Group-writable is someone else's unless the group is
 * this user's own: a group no other user belongs to, by the system's lists (`/etc/group`'s members
 * and `/etc/passwd`'s primary groups). That is the "user private group" a umask of 002 gives every
 * folder a tool creates (Debian's and Fedora's default for accounts made with one), so such a cache
 * folder is used; a group with any other member (`ssl-cert` holding `postgres`), or one the files
 * do not list (a directory service's), is not. Read once per group per process.
 */
import { readFileSync, type Stats } from 'node:fs'
import { userInfo } from 'node:os'

const posix = process.platform !== 'win32'
/** Group id -> whether no other user is in it (the answer for this process's user). */
const privateGroups = new Map<number, boolean>()

export function othersMayWrite(stats: Stats): boolean {
  if (!posix) return false
  if ((stats.mode & 0o002) !== 0) return true
  return (stats.mode & 0o020) !== 0 && !privateGroup(stats.gid)
}

/** Whether the group `gid` is listed and holds no user but this one (as a member or as a primary group). */
export function privateGroup(gid: number): boolean {
  let known = privateGroups.get(gid)
  if (known === undefined) privateGroups.set(gid, (known = readPrivateGroup(gid)))
  return known
}

function readPrivateGroup(gid: number): boolean {
  try {
    const { username, uid } = userInfo()
    return groupIsPrivate(gid, { group: readFileSync('/etc/group', 'utf8'), passwd: readFileSync('/etc/passwd', 'utf8'), username, uid })
  } catch {
    // No such files, no passwd entry for this user: nothing proves the group private.
    return false
  }
}

/** The system's lists as text, and who this process runs as. */
export interface AccountLists {
  group: string
  passwd: string
  username: string
  uid: number
}

/** Whether `gid` is listed in `group` and no account but this one is in it, as a member or by its primary group. */
export function groupIsPrivate(gid: number, lists: AccountLists): boolean {
  const group = records(lists.group).find((fields) => fields[2] !== '' && Number(fields[2]) === gid)
  if (group === undefined) return false
  const members = (group[3] ?? '').split(',').filter((name) => name.trim() !== '')
  if (members.some((name) => name.trim() !== lists.username)) return false
  return records(lists.passwd).every((fields) => fields[3] === undefined || fields[3] === '' || Number(fields[3]) !== gid || Number(fields[2]) === lists.uid)
}

/** The colon-separated records of a system list, comments and blank lines left out. */
const records = (text: string): string[][] =>
  text
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .map((line) => line.split(':'))
