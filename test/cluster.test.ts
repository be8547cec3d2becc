/**
 * Real JetStream clusters of nats-server on loopback, under faults (test/helpers/nats-cluster.ts):
 * provisioning with num_replicas 3 and 5; the NATS client; the executor; the durable executor on 3
 * nodes and on 5; and, on one server, the replicas the durable executor is given and the
 * interleavings a loaded cluster brings about now and then, made to happen every run. Each suite starts its own cluster (or server) and runs its tests in
 * order (a fault test leaves the cluster as the next one expects); the suites run at once, since
 * they mostly wait on leader elections, not on the CPU.
 */
import { describe, vi } from 'vitest'
import { clientOnCluster } from './cluster/client.js'
import { durableOnCluster } from './cluster/durable.js'
import { durableOnFiveNodes } from './cluster/durable-five.js'
import { executorOnCluster } from './cluster/executor.js'
import { provisioningOnCluster } from './cluster/provision.js'
import { replicasOnOneServer } from './cluster/replicas.js'

// A durable interaction's deadline here is 150 s (test/cluster/durable-world.ts): a test waits for its
// answer up to 160 s, so its own bound is above that.
vi.setConfig({ testTimeout: 240_000 })

describe.concurrent('JetStream clusters under faults', () => {
  provisioningOnCluster()
  clientOnCluster()
  executorOnCluster()
  durableOnCluster()
  durableOnFiveNodes()
  replicasOnOneServer()
})
