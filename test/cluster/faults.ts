/**
 * Faults the cluster suites share (each run inside a suite, on its cluster, with its durable world):
 * - a partition that leaves the executor's node (the claim bucket's leader) in the minority: first
 *   one way (it hears none of its peers), then both (./../helpers/route-proxy.ts), while it runs and
 *   its clients (the executor's, a courier's) stay connected, then restored;
 * - a courier process stopped (SIGSTOP) past its lease while its handler runs, then let go on
 *   (SIGCONT): the claim expires, another attempt takes over, the late result is refused by its
 *   fence and adds no vote, the process exits cleanly;
 * - `publishOnce` (the executor's JetStream publication) retried back to back through a stream
 *   leader change: stored once under its message id.
 * Invariants through ./invariants.ts.
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { expect } from 'vitest'
import type { NatsConnection } from '@nats-io/nats-core'
import { jetstreamManager } from '@nats-io/jetstream'
import type { Interaction } from '../../src/runtime/nats/interactions.js'
import { operationId } from '../../src/runtime/nats/interactions.js'
import { openClaimStore } from '../../src/runtime/nats/executor/index.js'
import { claimKey } from '../../src/runtime/nats/executor/durable/executor.js'
import { publishOnce } from '../../src/runtime/nats/executor/delivery/jetstream.js'
import { patient, shipmentInputs } from '../helpers/executor-durable-config.js'
import type { NatsCluster } from '../helpers/nats-cluster.js'
import { until } from '../helpers/until.js'
import { STREAM, type DurableWorld } from './durable-world.js'
import { bounded, expectFanOutSettled, storedSubjects } from './invariants.js'
import { variant } from '../helpers/executor-nats.js'
import { openRecordBucket } from '../../src/runtime/nats/executor/durable/records.js'
import { operationStore } from '../../src/runtime/nats/executor/durable/store.js'

/**
 * Partitions around the claim bucket's group with a fan-out in flight. First a deaf follower: a
 * follower of the claim bucket hears none of its peers while they hear it, for longer than its
 * election timeout (its campaigns reach the others, their answers never reach it); once it hears
 * again the couriers' renewals commit. Then a partition that leaves the executor's node in the
 * minority: the claim bucket's leader (placed back there if the campaigns moved it) first hears
 * none of its peers while they hear it (a one-way partition, a few seconds: nothing commits), then
 * its routes to every peer are cut while it and its client connections keep running; the executor
 * (pinned to it) and c-ann (pinned to it too, its handler running) are on the minority side, c-bob
 * and c-cat on the majority, where they answer during the cut. The executor cannot commit: a second
 * invocation needs its admission written and is refused within the state store's bound
 * (`EXECUTOR_STATE_FAILED`, src/runtime/nats/executor/durable/records.ts; that executor's bound
 * is shortened to `REFUSAL_SETTLE_MS`); it admits none of the results the majority stored and
 * nothing is decided meanwhile; c-ann renews nothing and is not aborted (its lease outlasts the
 * cut). Once the routes are back the fan-out decides once, and the refused invocation, tried again
 * with its idempotency key on the executor that refused it, is admitted and decides once. No client
 * connection dropped. `run` suffixes the idempotency keys, so the scenario can run again on one cluster.
 */
export async function executorInTheMinority(world: DurableWorld, cluster: NatsCluster, run = ''): Promise<void> {
  // A 90 s lease: the cut lasts the store's 20 s bound and more on a loaded machine; c-ann must not lose its claim to it.
  const interaction = variant(patient(world.module.interactions.assignCourier as Interaction, 150_000, {}, { leaseMs: 90_000, renewEveryMs: 500 }), {
    dispatch: { mode: 'independent' },
    completion: { mode: 'all-terminal' },
  })
  const claimStream = `KV_${world.binding.claimBucket!}`
  // The claim bucket (made here if no courier made it yet) and its leader: the node cut is that leader.
  const made = await openClaimStore(await world.open(cluster.servers), world.binding.claimBucket!, { replicas: 3 })
  if (!made.ok) throw new Error(made.message)
  const node = await cluster.streamLeader(claimStream)
  const home = cluster.node(node).url
  // The deaf follower: a follower of the claim bucket; no client of this scenario connects to it first.
  const deaf = (await cluster.streamPeers(claimStream)).find((n) => n !== node)!
  const others = [...cluster.servers.filter((s) => s !== home && s !== cluster.node(deaf).url), cluster.node(deaf).url]
  const majority = (i: number) => [others[i]!, ...others.filter((_, j) => j !== i)]
  let releaseAnn!: () => void
  let releaseOthers!: () => void
  const annGate = new Promise<void>((resolve) => (releaseAnn = resolve))
  const othersGate = new Promise<void>((resolve) => (releaseOthers = resolve))
  world.reset()
  await world.couriers(interaction, {
    'c-ann': { accepted: true, gate: annGate, servers: [home], pinned: true },
    'c-bob': { accepted: false, gate: othersGate, servers: majority(0) },
    'c-cat': { accepted: true, gate: othersGate, servers: majority(1) },
  })
  const connection = await world.open([home], true)
  let disconnects = 0
  void (async () => {
    for await (const status of connection.status()) if (status.type === 'disconnect') disconnects++
  })()
  // The fan-out in flight outlives the cut: its state store's settle bound is longer than the cut can
  // last (the majority's elections, the refusal's 8 s and the results stored there: over 20 s, the
  // default, on a loaded machine, where a save tried during the cut then gave up with "jetstream is
  // not enabled" and the operation ended refused).
  const ex = world.executor(interaction, connection, { settleMs: IN_FLIGHT_SETTLE_MS })
  // The invocation made during the cut goes to an executor beside it (same connection) whose state
  // store gives up sooner than the default 20 s: the cut need last only that long.
  const refusing = world.executor(interaction, connection, { settleMs: REFUSAL_SETTLE_MS })
  const first = { principalId: 'dispatcher', idempotencyKey: `minority-first${run}`, inputs: shipmentInputs }
  const second = { ...first, idempotencyKey: `minority-second${run}` }
  const id = await operationId(first.principalId, world.digest, first.idempotencyKey)
  // Questions during the cut go to the majority (the world's own connection prefers the cut node).
  const outside = await world.open(majority(0), true)
  const bucket = await openRecordBucket(outside, world.binding.stateBucket)
  const claims = await openClaimStore(outside, world.binding.claimBucket!)
  if (!bucket.ok) throw new Error(bucket.message)
  if (!claims.ok) throw new Error(claims.message)
  const store = operationStore(bucket.value)
  const annLease = () =>
    until(
      "c-ann's claim readable on the majority",
      async () => {
        const read = await claims.value.read(claimKey(id, 'c-ann'))
        return read.ok && read.value ? read.value.claim.leaseUntilMs : undefined
      },
      30_000,
      200,
    )
  let cut = false
  let exClosed = false
  try {
    const answer = ex.invoke(first)
    let settled = false
    void answer.then(() => (settled = true))
    await until('every courier handling its offer', () => (world.handled.size === 3 ? true : undefined), 30_000)
    const acknowledged = await world.subjects(`shipping.couriers.${id}.offer.*`)
    // A deaf follower first: it hears none of its peers while they hear it. It misses the leader's
    // appends and heartbeats, so it campaigns; its vote requests reach the others (a leader that sees
    // a higher term steps down) while their answers never reach it, so it never wins.
    const lease = async () => (await annLease()) as number
    const beforeDeaf = await lease()
    cluster.deafen(deaf)
    cut = true
    await new Promise((resolve) => setTimeout(resolve, DEAF_FOLLOWER_MS))
    await cluster.restoreRoutes(deaf)
    cut = false
    await cluster.ready()
    // The claim bucket's group goes on with the follower back: c-ann's renewals commit again.
    await until("c-ann's renewals committing after the deaf follower", async () => ((await lease()) > beforeDeaf ? true : undefined), 30_000, 200)
    // The one-way and the two-way cut below strike the claim bucket's leader, on the executor's node: its leadership restored if the campaigns moved it.
    await cluster.placeStreamLeader(claimStream, (name) => name === node)
    // First one way: the node hears none of its peers while they hear it. Its followers keep hearing
    // its heartbeats and elect no one; it hears no acknowledgment, so nothing commits: the couriers'
    // renewals stall, as the deaf leader itself answers when read (or it answers nothing once it
    // finds its quorum lost and steps down).
    const deafClaims = await openClaimStore(await world.open([home], true), world.binding.claimBucket!)
    if (!deafClaims.ok) throw new Error(deafClaims.message)
    const leases = async () => {
      const read = await Promise.all(['c-ann', 'c-bob', 'c-cat'].map((b) => deafClaims.value.read(claimKey(id, b))))
      return read.map((r) => (r.ok && r.value ? r.value.claim.leaseUntilMs : -1))
    }
    cluster.deafen(node)
    cut = true
    await new Promise((resolve) => setTimeout(resolve, 300))
    const during = await leases()
    expect(during.every((lease) => lease > 0)).toBe(true)
    await new Promise((resolve) => setTimeout(resolve, 3000))
    const after = await leases()
    expect(after.map((lease, i) => (lease === -1 ? during[i] : lease))).toEqual(during)
    // Then both ways: the majority elects without it.
    await cluster.cutRoutes(node)
    // No quorum on the executor's side: a new invocation's admission cannot be written (asked at once:
    // the store's bound runs while the majority goes on).
    const refusal = bounded('the refusal of an admission in the minority', refusing.invoke(second), 60_000)
    // The majority elects where the cut node led; c-bob and c-cat answer there.
    for (const stream of [STREAM, `KV_${world.binding.stateBucket}`, `KV_${world.binding.claimBucket!}`]) await cluster.streamLeader(stream)
    const annAtCut = await annLease()
    releaseOthers()
    await until(
      "c-bob's and c-cat's results stored by the majority",
      async () => (Object.keys(await storedSubjects(outside, STREAM, `shipping.couriers.${id}.accept.*`)).length === 2 ? true : undefined),
      30_000,
      200,
    )
    // Said within the store's bound.
    expect(await refusal).toMatchObject({ ok: false, code: 'EXECUTOR_STATE_FAILED' })
    // Nothing admitted or decided meanwhile: no result in the executor's log, its answer pending, no decision in the state bucket; c-ann renewed nothing.
    const log = ex.log(id)
    expect(log.ok && log.value.filter((e) => e.kind === 'result')).toEqual([])
    expect(settled).toBe(false)
    const undecided = await store.decision(id)
    expect(undecided.ok && undecided.value).toBe(null)
    expect(await annLease()).toBe(annAtCut)
    await cluster.restoreRoutes(node)
    cut = false
    await cluster.ready()
    for (const stream of [STREAM, `KV_${world.binding.stateBucket}`, `KV_${world.binding.claimBucket!}`]) await cluster.streamLeader(stream)
    releaseAnn()
    const result = await bounded('the fan-out decided after the cut healed', answer, 160_000)
    if (!result.ok) throw new Error(result.message)
    expectFanOutSettled(result.value, ex)
    expect([Object.fromEntries(world.handled), Object.fromEntries(world.aborted)]).toEqual([{ 'c-ann': 1, 'c-bob': 1, 'c-cat': 1 }, {}])
    await world.invariants(interaction, ex, result.value, acknowledged)
    // Done with: closed, so the results of the invocation tried again all go to the executor driving it
    // (two executors pulling one result consumer hand each other results, each redelivered).
    await ex.close()
    exClosed = true
    // The refused invocation, tried again with its key once the cut healed: admitted, decided once.
    const secondId = await operationId(second.principalId, world.digest, second.idempotencyKey)
    const where = async (error: unknown): Promise<never> => {
      // Where it stood: which branches were open, what the stream holds, what each consumer waits for.
      throw new Error(`${String(error)}; ${JSON.stringify(await diagnose(world, refusing, secondId))}`)
    }
    let again = await bounded('the refused invocation tried again', refusing.invoke(second), 160_000).catch(where)
    // This executor's store gives up after 8 s: just after the heal, on a loaded machine, a write can
    // take longer (the decision record's, in one run). The operation then waits for a resume, which
    // is what an application does on EXECUTOR_STATE_FAILED (bounded); it still decides once.
    for (let resumes = 0; !again.ok && again.code === 'EXECUTOR_STATE_FAILED' && resumes < 3; resumes++)
      again = await bounded('the refused invocation resumed', refusing.resume(secondId), 160_000).catch(where)
    if (!again.ok) throw new Error(again.message)
    expectFanOutSettled(again.value, refusing)
    await world.invariants(interaction, refusing, again.value)
    // The cut was between servers: neither the executor's nor any courier's client connection dropped.
    expect([disconnects, Object.fromEntries(world.disconnects)]).toEqual([0, {}])
  } finally {
    releaseAnn()
    releaseOthers()
    if (cut) for (const n of [node, deaf]) await cluster.restoreRoutes(n)
    if (!exClosed) await ex.close()
    await refusing.close()
    await world.closeCouriers()
  }
}

/** How long the claim bucket's follower is deaf: longer than its election timeout, so it campaigns. */
const DEAF_FOLLOWER_MS = 8000

/** The state store's settle bound of the executor refused in the minority (the default is 20 s). */
const REFUSAL_SETTLE_MS = 8000

/** The state store's settle bound of the executor whose fan-out is in flight through the cut: past any cut this scenario makes. */
const IN_FLIGHT_SETTLE_MS = 90_000

/** What an operation that did not decide in time was waiting for: its branches and log, its offers and results, the consumers' counts. */
async function diagnose(world: DurableWorld, ex: ReturnType<DurableWorld['executor']>, id: string) {
  const jsm = world.jsm
  const consumer = async (name: string) => {
    const info = await jsm.consumers.info(STREAM, name).catch((e: unknown) => String(e))
    return typeof info === 'string'
      ? info
      : {
          leader: info.cluster?.leader,
          pending: info.num_pending,
          ackPending: info.num_ack_pending,
          waiting: info.num_waiting,
          redelivered: info.num_redelivered,
          delivered: info.delivered,
          ackFloor: info.ack_floor,
        }
  }
  const state = ex.state(id)
  const log = ex.log(id)
  return {
    branches: state.ok ? state.value.branches.map((b) => [b.branchId, b.status, b.attempt, b.fence]) : state.message,
    log: log.ok ? log.value.map((e) => e.kind) : log.message,
    handled: Object.fromEntries(world.handled),
    offers: await world.subjects(`shipping.couriers.${id}.offer.*`).catch(String),
    accepts: await world.subjects(`shipping.couriers.${id}.accept.*`).catch(String),
    consumers: Object.fromEntries(
      await Promise.all(
        ['exec-assignCourier-c-ann', 'exec-assignCourier-c-bob', 'exec-assignCourier-c-cat', 'exec-assignCourier-results'].map(async (n) => [
          n,
          await consumer(n),
        ]),
      ),
    ),
  }
}

/** A courier in a process of its own (test/helpers/executor-stalled-courier-child.ts), to stop and go on by its PID. */
interface CourierProcess {
  readonly pid: number
  /** What it printed so far. */
  output(): string
  /** Waits (bounded) for a line of its output matching `pattern`. */
  line(pattern: RegExp, what: string, timeoutMs?: number): Promise<RegExpMatchArray>
  signal(signal: 'SIGSTOP' | 'SIGCONT'): void
  /** Asks it to close (a line on stdin) and waits (bounded) for its exit: its status and signal. */
  exit(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** Last resort: SIGCONT then SIGKILL, by its PID, if it still runs. */
  kill(): void
}

function courierProcess(world: DurableWorld, servers: string[], peerId: string, env: Record<string, string>): CourierProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '../helpers/executor-stalled-courier-child.ts')], {
    env: { ...process.env, NATS_SERVERS: servers.join(','), MODULE_FILE: world.moduleFile, PEER: peerId, REPLICAS: '3', ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  )
  const running = () => child.exitCode === null && child.signalCode === null
  return {
    pid: child.pid!,
    output: () => output,
    line: (pattern, what, timeoutMs = 30_000) =>
      until(
        what,
        () => {
          if (!running()) throw new Error(`the courier process exited before ${what}: ${output}`)
          return output.match(pattern) ?? undefined
        },
        timeoutMs,
        20,
      ),
    signal: (signal) => void process.kill(child.pid!, signal),
    exit: async () => {
      child.stdin!.end('exit\n')
      return bounded('the courier process exited', exited, 20_000)
    },
    kill() {
      if (!running()) return
      process.kill(child.pid!, 'SIGCONT')
      process.kill(child.pid!, 'SIGKILL')
    },
  }
}

/**
 * A truly stalled courier process: c-ann runs in a process of its own, its handler working on its
 * own clock; the process is stopped with SIGSTOP (not killed) while the handler runs, and stays
 * stopped past its 3 s lease: the executor expires the claim, offers attempt 2 to c-bob under a new
 * claim, and c-bob's answer decides. Then SIGCONT: c-ann's handler finishes (its timers fire late),
 * its commit meets the new fence and is refused, so nothing is published and attempt 1 adds no vote;
 * the process then closes and exits with status 0.
 */
export async function stalledCourierProcess(world: DurableWorld, cluster: NatsCluster, idempotencyKey: string): Promise<void> {
  const lease = { leaseMs: 3000, renewEveryMs: 500 }
  const interaction: Interaction = patient(world.module.interactions.assignCourier as Interaction, 150_000, {}, lease)
  const home = cluster.nodes[2]!.url
  world.reset()
  // The handler works 3 s of its own time: the stop lands while it works (it begins as `running` is read).
  const ann = courierProcess(world, [home, ...cluster.servers.filter((s) => s !== home)], 'c-ann', {
    LEASE_MS: String(lease.leaseMs),
    RENEW_MS: String(lease.renewEveryMs),
    WORK_MS: '3000',
  })
  let stopped = false
  const observer = await world.open(cluster.servers)
  const claims = await openClaimStore(observer, world.binding.claimBucket!)
  if (!claims.ok) throw new Error(claims.message)
  let ex: ReturnType<DurableWorld['executor']> | undefined
  try {
    await ann.line(/^ready$/m, 'the courier process consuming')
    await world.couriers(interaction, { 'c-bob': { accepted: true, servers: cluster.servers } })
    ex = world.executor(interaction, await world.open(cluster.servers))
    const invocation = { principalId: 'dispatcher', idempotencyKey, inputs: shipmentInputs }
    const id = await operationId(invocation.principalId, world.digest, invocation.idempotencyKey)
    const key = claimKey(id, 'c-ann')
    const subjects = (kind: 'offer' | 'accept') => storedSubjects(observer, STREAM, `shipping.couriers.${id}.${kind}.*`)
    const answer = ex.invoke(invocation)
    const [, attempt, fenceText] = await ann.line(/^running (\d+) (\d+)$/m, 'c-ann handling attempt 1')
    ann.signal('SIGSTOP')
    stopped = true
    expect(attempt).toBe('1')
    const fence = Number(fenceText)
    const acknowledged = await subjects('offer')
    // The lease passes unrenewed while the process is stopped: the claim expires, attempt 2 goes to c-bob, whose answer decides.
    const result = await bounded('the offer decided', answer, 160_000)
    if (!result.ok) throw new Error(result.message)
    ann.signal('SIGCONT')
    stopped = false
    // The stalled handler finishes late and answers; the commit under its old fence is refused, the request acknowledged as stale.
    await ann.line(/^returned 1$/m, 'c-ann handler finished after SIGCONT')
    const jsm = await jetstreamManager(observer, { timeout: 5000 })
    await until(
      'c-ann request settled',
      async () => {
        const info = await jsm.consumers.info(STREAM, 'exec-assignCourier-c-ann').catch(() => undefined)
        return info && info.num_pending === 0 && info.num_ack_pending === 0 ? true : undefined
      },
      60_000,
      200,
    )
    const [branch] = result.value.state.branches
    const last = await claims.value.read(key)
    if (!branch || !last.ok || !last.value) throw new Error('no branch or no claim')
    // Another attempt took over under a higher fence; it is the only vote.
    expect(branch).toMatchObject({ branchId: 'c-ann', peerId: 'c-bob', attempt: 2, status: 'succeeded' })
    expect(last.value.claim).toMatchObject({ peerId: 'c-bob', attempt: 2, fence: branch.fence, state: 'committed' })
    expect(branch.fence).toBeGreaterThan(fence)
    expect(result.value.decision).toMatchObject({ outcome: 'success', reason: 'threshold' })
    expect(result.value.decision.votes).toEqual([expect.objectContaining({ branchId: 'c-ann', peerId: 'c-bob', attempt: 2, fence: branch.fence })])
    // The late result was refused by its fence: never published (c-bob's is the only result), never in the log.
    expect(await subjects('accept')).toEqual({ [`shipping.couriers.${id}.accept.c-bob`]: 1 })
    const log = ex.log(id)
    if (!log.ok) throw new Error(log.message)
    expect(log.value.filter((e) => e.kind === 'result').map((e) => [(e as { peerId: string }).peerId, (e as { attempt: number }).attempt])).toEqual([
      ['c-bob', 2],
    ])
    expect(await claims.value.commit(key, 'c-ann', fence, Date.now())).toMatchObject({ ok: false, code: 'CLAIM_STALE' })
    await world.invariants(interaction, ex, result.value, acknowledged)
    // The process closes cleanly, having published nothing.
    expect(await ann.exit()).toEqual({ code: 0, signal: null })
    expect(ann.output().match(/^closed \d+$/m)?.[0]).toBe('closed 0')
  } finally {
    if (stopped) ann.signal('SIGCONT')
    ann.kill()
    await ex?.close()
    await world.closeCouriers()
  }
}

/**
 * `publishOnce` called back to back with one message id while the stream's leader is killed and
 * another elected: every answer it gives names the same sequence, and the stream stores the
 * message once; answers that sequence. The leader change is the caller's when it gives one (it
 * then restarts the killed node itself); else the leader is killed here once a first answer is
 * in, and restarted afterwards (the cluster left whole).
 */
export async function publishOnceThroughLeaderChange(
  cluster: NatsCluster,
  connection: NatsConnection,
  stream: string,
  subject: string,
  payload: unknown,
  leaderChange?: Promise<{ killed: string; elected: string }>,
): Promise<number> {
  const msgId = `publish-once-${subject}`
  const answers: Array<{ seq: number; duplicate: boolean } | string> = []
  let killed: string | undefined
  let elected: string | undefined
  const kill = (async () => {
    if (leaderChange) {
      ;({ elected } = await leaderChange)
      return
    }
    // Once the first answer is in: the kill meets the calls that follow it.
    await until('a first answer', () => (answers.length > 0 ? true : undefined), 30_000, 10)
    killed = await cluster.killStreamLeader(stream)
    elected = await cluster.newStreamLeader(stream, killed)
  })()
  try {
    // Back to back (25 ms apart), bounded: 90 s at most; done once three answers came after the new leader was known.
    const end = Date.now() + 90_000
    let afterElection = 0
    while (afterElection < 3 && Date.now() < end) {
      const sent = await publishOnce(connection, subject, payload, msgId)
      answers.push(sent.ok ? sent.value : sent.message)
      if (elected && sent.ok) afterElection++
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
    await kill
    expect(afterElection).toBe(3)
  } finally {
    await kill.catch(() => undefined)
    if (killed) {
      await cluster.restart(killed)
      await cluster.ready()
      await cluster.streamLeader(stream)
    }
  }
  const acked = answers.filter((a): a is { seq: number; duplicate: boolean } => typeof a !== 'string')
  // One sequence across the leader change: the first acknowledgment stored it, every later one is a duplicate of it.
  expect(new Set(acked.map((a) => a.seq)).size).toBe(1)
  expect(acked.map((a) => a.duplicate)).toEqual([false, ...Array(acked.length - 1).fill(true)])
  expect(await storedSubjects(connection, stream, subject)).toEqual({ [subject]: 1 })
  const jsm = await jetstreamManager(connection, { timeout: 5000 })
  expect((await jsm.streams.getMessage(stream, { seq: acked[0]!.seq }))?.json()).toEqual(payload)
  return acked[0]!.seq
}
