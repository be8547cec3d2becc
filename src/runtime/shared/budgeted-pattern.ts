/**
 * A backtracking matcher with a step budget, for the schema patterns no proof covers: a
 * backreference, a lookbehind, a lookaround anywhere but the leading position, an RE2-inexpressible
 * form, or an RE2 program past its bound (`src/core/pattern-safety.ts` states the policy). It
 * runs ECMAScript's own matching semantics (Unicode mode, ECMA-262 "Pattern Semantics": ordered
 * alternation, greedy and lazy repetition with the empty-iteration check, captures reset per
 * iteration, atomic lookarounds, lookbehind matched backwards, backreferences to groups that did
 * not take part matching the empty string), counts every step, and gives up past the budget: the
 * value is then *undecided* and fails the pattern with its own error (`patternFail`), never a
 * freeze.
 *
 * No JavaScript library runs ECMAScript patterns under a step limit (V8's backtrack limit is an
 * internal flag, not an option of `RegExp`), so this is a small virtual machine over the compact
 * form the compiler hands it (`PatternNode`, made from the pattern's syntax tree by
 * `src/core/pattern-program.ts`: the runtime parses nothing). Iterative, with explicit choice and
 * undo stacks: no recursion on the input, so no stack overflow whatever the value.
 *
 * Worst case, per match: MAX_PATTERN_STEPS steps. A step is one instruction executed, one capture
 * register reset on entering a repetition, or one code unit compared by a backreference; undoing
 * and cutting on backtrack cost at most what was done. Each step is O(1): a code point compare, a
 * position test, or a sticky `RegExp` test of one character class against one character
 * (constant for a given pattern, the class's size at most); a case-insensitive backreference
 * builds one `RegExp` of the captured text (counted as its length plus 32 steps). About 10 ns a
 * step once V8 has optimized the matcher: 2^18 steps take ~2.5 ms, whatever the pattern and the
 * value (20-35 ms for each of a process's first three matches; bench/hostile-validators.ts). Besides
 * the steps, a match fills one array of the program's registers (two per group and per
 * repetition: the pattern's size, not the value's). Memory: the stacks grow by at most a few
 * entries per step.
 */

/**
 * One node of a pattern's compact form:
 * `[0, source, ignoreCase]` one character matching `source` (a class, a set, an escape or `.`),
 * `[1, codePoint]` a literal code point, `[2, nodes]` a sequence, `[3, nodes]` an ordered
 * alternation, `[4, min, max, greedy, atom, firstGroup, lastGroup]` a repetition (`max` -1 for no
 * bound; the capture groups inside the atom, reset at each iteration; 0 and -1 when none),
 * `[5, group, node]` a capture group, `[6, assertion]` (`ASSERTIONS`), `[7, negate, behind, node]`
 * a lookaround, `[8, groups, ignoreCase]` a backreference (several groups for a duplicate name),
 * `[9, text]` literal characters in a row (one step per code unit).
 */
export type PatternNode =
  | readonly [0, string, 0 | 1]
  | readonly [1, number]
  | readonly [2, readonly PatternNode[]]
  | readonly [3, readonly PatternNode[]]
  | readonly [4, number, number, 0 | 1, PatternNode, number, number]
  | readonly [5, number, PatternNode]
  | readonly [6, number]
  | readonly [7, 0 | 1, 0 | 1, PatternNode]
  | readonly [8, readonly number[], 0 | 1]
  | readonly [9, string]

/** A pattern for the budgeted matcher: its number of capture groups and its tree. */
export type BacktrackProgram = readonly [groups: number, node: PatternNode]

/** `[6, n]`: `^`, `$`, `^` and `$` in multiline mode (`(?m:...)`), `\b`, `\B`, and both under `(?i:...)`. */
export const ASSERTIONS = { start: 0, end: 1, lineStart: 2, lineEnd: 3, word: 4, notWord: 5, wordIgnoreCase: 6, notWordIgnoreCase: 7 } as const

/**
 * The most steps one match may take (see the module comment for what a step is): past it the
 * value is undecided and fails its pattern. Enough for any ordinary value of an ordinary pattern
 * (a scan of a 50,000-character value by a pattern with a few instructions per character); a
 * catastrophic pattern meets it within milliseconds.
 */
export const MAX_PATTERN_STEPS = 1 << 18

const LIT = 0
const CLASS = 1
const SPLIT = 2
const JMP = 3
const SAVE = 4
const ASSERT = 5
const LOOK = 6
const LOOK_END = 7
const BACKREF = 8
const LOOP_INIT = 9
const LOOP = 10
const LOOP_ENTER = 11
const LOOP_END = 12
const MATCH = 13
const TEXT = 14

/** One instruction; every field a number except `re` and `groups`, so that every instruction has one shape. */
interface Op {
  op: number
  /** Backwards (inside a lookbehind). */
  back: boolean
  a: number
  b: number
  c: number
  d: number
  e: number
  re: RegExp | null
  groups: readonly number[]
  text: string
}

const op = (code: number, back = false, a = 0, b = 0, c = 0, d = 0, re: RegExp | null = null, groups: readonly number[] = []): Op => ({
  op: code,
  back,
  a,
  b,
  c,
  d,
  e: 0,
  re,
  groups,
  text: '',
})

/** A compiled program: instructions, register count, and whether only position 0 can match. */
interface Machine {
  code: Op[]
  registers: number
  anchored: boolean
}

/** Instructions for a program. Linear in its size (repetitions are loops over registers, never unrolled). */
function assemble(program: BacktrackProgram): Machine {
  const [groups, root] = program
  const code: Op[] = []
  const classes = new Map<string, RegExp>()
  const captures = 2 * (groups + 1)
  let loops = 0
  const emit = (node: PatternNode, back: boolean): void => {
    switch (node[0]) {
      case 0: {
        const key = `${node[2]}${node[1]}`
        let re = classes.get(key)
        if (re === undefined) classes.set(key, (re = new RegExp(node[1], node[2] === 1 ? 'iuy' : 'uy')))
        code.push(op(CLASS, back, 0, 0, 0, 0, re))
        return
      }
      case 1:
        code.push(op(LIT, back, node[1]))
        return
      case 2: {
        const items = back ? [...node[1]].reverse() : node[1]
        for (const item of items) emit(item, back)
        return
      }
      case 3: {
        const jumps: Op[] = []
        node[1].forEach((alt, i) => {
          if (i === node[1].length - 1) return emit(alt, back)
          const split = op(SPLIT, back, code.length + 1)
          code.push(split)
          emit(alt, back)
          const jump = op(JMP)
          jumps.push(jump)
          code.push(jump)
          split.b = code.length
        })
        for (const jump of jumps) jump.a = code.length
        return
      }
      case 4: {
        const [, min, max, greedy, atom, first, last] = node
        const loop = loops++
        code.push(op(LOOP_INIT, back, loop))
        // LOOP: a register, b minimum, c maximum, d the exit (patched below), e greedy.
        const head = op(LOOP, back, loop, min, max)
        head.e = greedy
        const headAt = code.length
        code.push(head, op(LOOP_ENTER, back, loop, first, last))
        emit(atom, back)
        code.push(op(LOOP_END, back, loop, min, headAt))
        head.d = code.length
        return
      }
      case 5: {
        const [, group, body] = node
        // Backwards, the group's end is reached first (ECMA-262: the capture is from y to x).
        code.push(op(SAVE, back, back ? 2 * group + 1 : 2 * group))
        emit(body, back)
        code.push(op(SAVE, back, back ? 2 * group : 2 * group + 1))
        return
      }
      case 6:
        code.push(op(ASSERT, back, node[1]))
        return
      case 7: {
        const look = op(LOOK, back, node[1])
        code.push(look)
        emit(node[3], node[2] === 1)
        code.push(op(LOOK_END))
        look.b = code.length
        return
      }
      case 8:
        code.push(op(BACKREF, back, node[2], 0, 0, 0, null, node[1]))
        return
      case 9: {
        const text = op(TEXT, back)
        text.text = node[1]
        code.push(text)
        return
      }
    }
  }
  emit(root, false)
  code.push(op(MATCH))
  // Loop registers after the captures: a count and the position the current iteration began at.
  for (const o of code) if (o.op === LOOP_INIT || o.op === LOOP || o.op === LOOP_ENTER || o.op === LOOP_END) o.a = captures + 2 * o.a
  return { code, registers: captures + 2 * loops, anchored: anchoredAtStart(root) }
}

/** Whether every way through the node begins with a non-multiline `^`: then only position 0 can match. */
function anchoredAtStart(node: PatternNode): boolean {
  switch (node[0]) {
    case 6:
      return node[1] === ASSERTIONS.start
    case 2:
      return node[1].length > 0 && anchoredAtStart(node[1][0]!)
    case 3:
      return node[1].every(anchoredAtStart)
    case 5:
      return anchoredAtStart(node[2])
    default:
      return false
  }
}

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff
const isLineTerminator = (unit: number) => unit === 0x0a || unit === 0x0d || unit === 0x2028 || unit === 0x2029
const isWordUnit = (unit: number) => (unit >= 0x61 && unit <= 0x7a) || (unit >= 0x41 && unit <= 0x5a) || (unit >= 0x30 && unit <= 0x39) || unit === 0x5f
/** Under `i` with the Unicode flag, `\w` also takes the two characters that fold into it: U+017F (ſ, to s) and U+212A (Kelvin, to k). */
const isWordUnitIgnoreCase = (unit: number) => isWordUnit(unit) || unit === 0x17f || unit === 0x212a

/** Whether `pos` falls between the two halves of a surrogate pair (not a character boundary). */
const splitsPair = (input: string, pos: number) => pos > 0 && pos < input.length && isLow(input.charCodeAt(pos)) && isHigh(input.charCodeAt(pos - 1))

/** The start of the code point that ends at `pos` (> 0). */
const previousStart = (input: string, pos: number) => (pos >= 2 && isLow(input.charCodeAt(pos - 1)) && isHigh(input.charCodeAt(pos - 2)) ? pos - 2 : pos - 1)

/** A `RegExp` source matching exactly `text`, each code point as an escape. */
function literalSource(text: string): string {
  let out = ''
  for (const ch of text) out += `\\u{${ch.codePointAt(0)!.toString(16)}}`
  return out
}

/** What a match found: `true`/`false`, or `undefined` when the budget ran out first. */
export type Verdict = boolean | undefined

/**
 * Runs `machine` on `input` within `budget` steps. State is local to the call: a matcher may be
 * called again from anywhere (nothing is reentrant here, but nothing needs to be).
 */
function run(machine: Machine, input: string, budget: number): Verdict {
  const { code } = machine
  const n = input.length
  const regs: number[] = new Array<number>(machine.registers).fill(-1)
  // Undo log: register, old value (every entry pushed by a counted step).
  const trail: number[] = []
  // Choice points, one slot each: resume pc (-1 marks a lookaround's barrier), position, trail length, continuation.
  const stPc: number[] = []
  const stPos: number[] = []
  const stTrail: number[] = []
  const stCont: number[] = []
  const stNeg: boolean[] = []
  let sp = 0
  const looks: number[] = []
  let steps = 0
  const set = (reg: number, value: number) => {
    trail.push(reg, regs[reg]!)
    regs[reg] = value
  }
  const undo = (length: number) => {
    while (trail.length > length) {
      const old = trail.pop()!
      regs[trail.pop()!] = old
    }
  }
  const push = (pc: number, pos: number) => {
    stPc[sp] = pc
    stPos[sp] = pos
    stTrail[sp] = trail.length
    sp++
  }
  for (let start = 0; start <= n; start = start < n && isHigh(input.charCodeAt(start)) && isLow(input.charCodeAt(start + 1)) ? start + 2 : start + 1) {
    if (start > 0 && machine.anchored) break
    let pc = 0
    let pos = start
    for (;;) {
      if (++steps > budget) return undefined
      const o = code[pc]!
      let ok = true
      switch (o.op) {
        case LIT:
          if (o.back) {
            if (pos === 0) ok = false
            else {
              const from = previousStart(input, pos)
              if (input.codePointAt(from) === o.a) pos = from
              else ok = false
            }
          } else {
            const cp = pos < n ? input.codePointAt(pos)! : -1
            if (cp === o.a) pos += cp > 0xffff ? 2 : 1
            else ok = false
          }
          pc++
          break
        case CLASS: {
          const re = o.re!
          if (o.back) {
            if (pos === 0) ok = false
            else {
              const from = previousStart(input, pos)
              re.lastIndex = from
              if (re.test(input) && re.lastIndex === pos) pos = from
              else ok = false
            }
          } else if (pos >= n) ok = false
          else {
            re.lastIndex = pos
            if (re.test(input)) pos = re.lastIndex
            else ok = false
          }
          pc++
          break
        }
        case SPLIT:
          push(o.b, pos)
          pc = o.a
          break
        case JMP:
          pc = o.a
          break
        case SAVE:
          set(o.a, pos)
          pc++
          break
        case ASSERT:
          ok = assertion(o.a, input, pos)
          pc++
          break
        case LOOK:
          stNeg[sp] = o.a === 1
          stCont[sp] = o.b
          push(-1, pos)
          looks.push(sp - 1)
          pc++
          break
        case LOOK_END: {
          // The lookaround's body matched: cut every choice it left (lookarounds are atomic).
          const barrier = looks.pop()!
          sp = barrier
          if (stNeg[barrier]) {
            undo(stTrail[barrier]!)
            ok = false
          } else {
            pos = stPos[barrier]!
            pc = stCont[barrier]!
          }
          break
        }
        case BACKREF: {
          const [from, to] = captured(o, regs)
          // The compare costs the captured length, matched or not; a case-insensitive one also builds a RegExp.
          steps += to - from + (o.a === 1 ? 32 : 0)
          const matched = backreference(o, input, pos, from, to)
          if (matched < 0) ok = false
          else pos = matched
          pc++
          break
        }
        case LOOP_INIT:
          set(o.a, 0)
          pc++
          break
        case LOOP: {
          const count = regs[o.a]!
          if (o.c !== -1 && count >= o.c) pc = o.d
          else if (count < o.b) pc++
          else if (o.e === 1) {
            push(o.d, pos)
            pc++
          } else {
            push(pc + 1, pos)
            pc = o.d
          }
          break
        }
        case LOOP_ENTER:
          set(o.a + 1, pos)
          // Captures inside the atom start each iteration undefined (ECMA-262 RepeatMatcher, step 4).
          if (o.b > 0)
            for (let g = o.b; g <= o.c; g++) {
              if (regs[2 * g] !== -1) set(2 * g, -1)
              if (regs[2 * g + 1] !== -1) set(2 * g + 1, -1)
              steps += 2
            }
          pc++
          break
        case LOOP_END: {
          const count = regs[o.a]!
          // An iteration past the minimum that consumed nothing fails (ECMA-262 RepeatMatcher, the empty check).
          if (count >= o.b && pos === regs[o.a + 1]) ok = false
          else {
            set(o.a, count + 1)
            pc = o.c
          }
          break
        }
        case TEXT: {
          const text = o.text
          const begin = o.back ? pos - text.length : pos
          if (begin < 0 || !input.startsWith(text, begin) || splitsPair(input, begin) || splitsPair(input, begin + text.length)) ok = false
          else {
            steps += text.length
            pos = o.back ? begin : begin + text.length
          }
          pc++
          break
        }
        case MATCH:
          return true
      }
      if (ok) continue
      // Backtrack: the latest choice point, or a lookaround whose body found no match.
      let resumed = false
      while (sp > 0) {
        sp--
        undo(stTrail[sp]!)
        if (stPc[sp] !== -1) {
          pc = stPc[sp]!
          pos = stPos[sp]!
          resumed = true
          break
        }
        looks.pop()
        if (stNeg[sp]) {
          pos = stPos[sp]!
          pc = stCont[sp]!
          resumed = true
          break
        }
      }
      if (!resumed) break
    }
    undo(0)
  }
  return false
}

function assertion(kind: number, input: string, pos: number): boolean {
  const n = input.length
  switch (kind) {
    case ASSERTIONS.start:
      return pos === 0
    case ASSERTIONS.end:
      return pos === n
    case ASSERTIONS.lineStart:
      return pos === 0 || isLineTerminator(input.charCodeAt(pos - 1))
    case ASSERTIONS.lineEnd:
      return pos === n || isLineTerminator(input.charCodeAt(pos))
    default: {
      const word = kind === ASSERTIONS.wordIgnoreCase || kind === ASSERTIONS.notWordIgnoreCase ? isWordUnitIgnoreCase : isWordUnit
      const boundary = (pos > 0 && word(input.charCodeAt(pos - 1))) !== (pos < n && word(input.charCodeAt(pos)))
      return kind === ASSERTIONS.word || kind === ASSERTIONS.wordIgnoreCase ? boundary : !boundary
    }
  }
}

/** The text a backreference repeats, as `[from, to]`: its first group that took part, or `[0, 0]` (none did). */
function captured(o: Op, regs: readonly number[]): [number, number] {
  for (const g of o.groups) if (regs[2 * g]! !== -1 && regs[2 * g + 1]! !== -1) return [regs[2 * g]!, regs[2 * g + 1]!]
  return [0, 0]
}

/** Where a backreference to `input[from, to)` leaves the position, or -1 when it does not match. */
function backreference(o: Op, input: string, pos: number, from: number, to: number): number {
  // A group that did not take part matches the empty string.
  if (from === to) return pos
  const length = to - from
  const n = input.length
  if (o.a === 1) {
    // Case-insensitive: the engine's own folding, on the captured text.
    const re = new RegExp(literalSource(input.slice(from, to)), 'iuy')
    if (!o.back) {
      re.lastIndex = pos
      return re.test(input) ? re.lastIndex : -1
    }
    let begin = pos
    for (let points = [...input.slice(from, to)].length; points > 0; points--) {
      if (begin === 0) return -1
      begin = previousStart(input, begin)
    }
    re.lastIndex = begin
    return re.test(input) && re.lastIndex === pos ? begin : -1
  }
  const begin = o.back ? pos - length : pos
  const end = begin + length
  if (begin < 0 || end > n) return -1
  for (let i = 0; i < length; i++) if (input.charCodeAt(from + i) !== input.charCodeAt(begin + i)) return -1
  // Code points, not code units: the compared text must not split a surrogate pair at either end.
  if (splitsPair(input, end) || splitsPair(input, begin)) return -1
  return o.back ? begin : end
}

/** Something that decides whether a string matches, and says when it could not decide. */
export interface BudgetedMatcher {
  test(text: string): boolean
  /** Whether the last `test` ran out of its budget (its `false` means undecided, not a mismatch). */
  readonly undecided: boolean
}

/** A matcher for `program`, assembled on its first use; `budget` steps per match. */
export function budgetedMatcher(program: BacktrackProgram, budget = MAX_PATTERN_STEPS): BudgetedMatcher {
  let machine: Machine | null | undefined
  const matcher = {
    undecided: false,
    test(text: string): boolean {
      if (machine === undefined) {
        try {
          machine = assemble(program)
        } catch {
          // A program this runtime cannot read (a module built by hand): every value undecided.
          machine = null
        }
      }
      const verdict = machine === null ? undefined : run(machine, text, budget)
      matcher.undecided = verdict === undefined
      return verdict === true
    },
  }
  return matcher
}

/** The verdict itself, for tests and benchmarks: `undefined` when the budget ran out. */
export function budgetedVerdict(program: BacktrackProgram, text: string, budget = MAX_PATTERN_STEPS): Verdict {
  return run(assemble(program), text, budget)
}
