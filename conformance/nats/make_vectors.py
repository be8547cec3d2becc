#!/usr/bin/env python3
"""Computes conformance/nats/runtime-vectors.json independently of src/ (Python's hashlib and
integer arithmetic), from the layout's definitions:

- operationId: "op" + lowercase hex SHA-256 over principal id, contract digest and invocation key,
  in that order, each as UTF-8 bytes preceded by its byte length as a 4-byte unsigned big-endian integer.
- quorumThreshold: ceil(numerator * admittedUnits / denominator).

  python3 make_vectors.py --write   (re)write the vectors
  python3 make_vectors.py --check   recompute and fail on any difference (npm test runs this)
"""
import hashlib
import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FILE = os.path.join(HERE, 'runtime-vectors.json')

OPERATION_INPUTS = [
    ['alice', 'a' * 64, 'key-1'],
    ['alice', 'a' * 64, 'key-2'],
    ['', '', ''],
    ['ab', 'c', ''],
    ['a', 'bc', ''],
    ['zoë', '0f' * 32, 'invocation/ü/😀'],
    ['service:payments', 'e7d64fbcf026d1706909b4fc8ca8d6b0cd1eea8c8bcd4d5daabc65e86aa08160', '2026-11-30T10:00:00Z#42'],
    ['x' * 300, 'f' * 64, 'k' * 1000],
]

QUORUM_INPUTS = [[2, 3, 0], [2, 3, 1], [2, 3, 3], [2, 3, 4], [1, 2, 5], [1, 1, 7], [3, 4, 10], [1, 3, 1], [9007199254740991, 9007199254740991, 9007199254740991], [999999, 1000000, 1000000000]]


def operation_id(principal, digest, key):
    data = b''.join(struct.pack('>I', len(p.encode('utf-8'))) + p.encode('utf-8') for p in (principal, digest, key))
    return 'op' + hashlib.sha256(data).hexdigest()


def quorum(n, d, units):
    return -(-n * units // d)


def vectors():
    return {
        '$comment': 'Computed by make_vectors.py, independently of src/.',
        'operationId': [{'principalId': p, 'contractDigest': d, 'invocationKey': k, 'expected': operation_id(p, d, k)} for p, d, k in OPERATION_INPUTS],
        'quorumThreshold': [{'numerator': n, 'denominator': d, 'admittedUnits': u, 'expected': quorum(n, d, u)} for n, d, u in QUORUM_INPUTS],
    }


def main(mode):
    fresh = vectors()
    if mode == '--write':
        with open(FILE, 'w', encoding='utf-8') as f:
            json.dump(fresh, f, ensure_ascii=False, indent=2)
            f.write('\n')
    with open(FILE, encoding='utf-8') as f:
        stored = json.load(f)
    failures = [name for name in ('operationId', 'quorumThreshold') if stored.get(name) != fresh[name]]
    count = len(fresh['operationId']) + len(fresh['quorumThreshold'])
    print('%d passed, %d failed' % (count - len(failures), len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    if len(sys.argv) != 2 or sys.argv[1] not in ('--write', '--check'):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
