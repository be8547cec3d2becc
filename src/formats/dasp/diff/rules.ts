import { SCHEMA_DIFF_RULES } from '../../../core/diff/schema-diff.js'
import type { DiffRule } from '../../../core/diff/types.js'

const ALL = ['client', 'host', 'saved-session'] as const
const PEERS = ['client', 'host'] as const

/**
 * The DASP differ's rules. Section names are the DASP extension contracts' requirement groups.
 * Every level follows the specification's MUST: peers confirm one exact selection (DASP-EXT-004),
 * saved sessions reopen only on a fresh selection meeting their saved floor (DASP-EXT-005), and
 * published version content is immutable (DASP-EXT-008).
 */
export const DASP_OWN_RULES: readonly DiffRule[] = [
  {
    id: 'dasp-contract-changed',
    levels: ['breaking'],
    audiences: ALL,
    summary:
      'The selected core, profile or binding identity changed: peers confirm exactly one core, profile and binding (DASP-EXT-004), and a saved session keeps its profile and exact contract identities (DASP-EXT-005).',
    example: {
      old: '"profile": { "uri": "urn:example:dasp:counter", "version": "1", ... }',
      new: '"profile": { "uri": "urn:example:dasp:counter", "version": "2", ... }',
    },
  },
  {
    id: 'dasp-pin-changed',
    levels: ['breaking'],
    audiences: ALL,
    summary:
      'A content pin changed (a selected contract or an extension definition): the pin is part of the authenticated selection (DASP-EXT-002, 004) and of the saved session record, which has no migration (DASP-EXT-005).',
    example: { old: '"content": { "kind": "git-commit", ..., "commit": "3f2a…f901" }', new: '"content": { "kind": "git-commit", ..., "commit": "9b7c…0a12" }' },
  },
  {
    id: 'dasp-extension-added',
    levels: ['breaking'],
    audiences: ['host'],
    summary:
      'An extension is newly requested: a host that does not support it must refuse the request, never drop it (DASP-EXT-004). Saved sessions still reopen: the new selection meets their floor and more.',
    example: { old: '"extensions": [ENC]', new: '"extensions": [ENC, { "uri": "urn:example:ext:audit", "version": "1", "scope": "session", ... }]' },
  },
  {
    id: 'dasp-extension-removed',
    levels: ['breaking'],
    audiences: ['client', 'saved-session'],
    summary:
      'An extension is no longer requested: a host must refuse a request whose extensions it does not support (DASP-EXT-004), and a saved session whose floor holds it cannot reopen (DASP-EXT-005: the floor is never weakened).',
    example: { old: '"extensions": [ENC, AUTH]', new: '"extensions": [ENC]' },
  },
  {
    id: 'dasp-extension-version-changed',
    levels: ['breaking'],
    audiences: ALL,
    summary:
      'An extension is requested at another version: versions compare exactly with no range assumed (DASP-EXT-002, 008), and a different version cannot silently replace a saved one (DASP-EXT-005).',
    example: { old: '{ "uri": "urn:example:ext:auth", "version": "1", ... }', new: '{ "uri": "urn:example:ext:auth", "version": "2", ... }' },
  },
  {
    id: 'dasp-extension-scope-changed',
    levels: ['breaking'],
    audiences: ALL,
    summary:
      'An extension is requested in another scope: each selection is bound to one scope (DASP-EXT-003), and the saved floor records its scope rules (DASP-EXT-005).',
    example: { old: '{ "uri": "urn:example:ext:auth", "scope": "session", ... }', new: '{ "uri": "urn:example:ext:auth", "scope": "command", ... }' },
  },
  {
    id: 'dasp-persistent-setting-changed',
    levels: ['breaking'],
    audiences: ALL,
    summary:
      'A setting that persists with the session was changed, set or unset: settings are authenticated complete (DASP-EXT-004), and a session saved with it cannot reopen without its saved value (DASP-EXT-005); one newly set is a requirement beyond the saved floor, which sessions saved without it still meet.',
    example: { old: '"settings": { "grant_bytes": 16384 }', new: '"settings": { "grant_bytes": 8192 }' },
  },
  {
    id: 'dasp-connection-setting-changed',
    levels: ['breaking'],
    audiences: PEERS,
    summary:
      'A fresh connection setting was changed, set or unset: both peers confirm the exact complete settings (DASP-EXT-004); it is not saved with the session, so saved sessions are unaffected (DASP-EXT-005).',
    example: { old: '"settings": { "rekey_interval_s": 3600 }', new: '"settings": { "rekey_interval_s": 600 }' },
  },
  {
    id: 'dasp-setting-persistence-changed',
    levels: ['breaking'],
    audiences: PEERS,
    summary:
      'A definition moved a setting between session requirement and fresh connection setting: which settings remain session requirements is part of the definition (DASP-EXT-002); a session saved with the setting keeps its saved value as its floor (DASP-EXT-005), which a reopening selection that sets it still meets.',
    example: {
      old: '"grant_bytes": { "type": "integer", "persistence": "session" }',
      new: '"grant_bytes": { "type": "integer", "persistence": "connection" }',
    },
  },
  {
    id: 'dasp-setting-meaning-changed',
    levels: ['breaking'],
    audiences: ALL,
    summary:
      "A setting's type, unit or uniqueness key changed: the same value now means something else to one of the peers (DASP-EXT-002, 008); for a persistent setting the saved interpretation changes too (DASP-EXT-005, 008).",
    example: { old: '"rekey": { "type": "integer", "unit": "seconds", ... }', new: '"rekey": { "type": "integer", "unit": "milliseconds", ... }' },
  },
  {
    id: 'dasp-setting-narrowed',
    levels: ['breaking'],
    audiences: ['client'],
    summary:
      'A setting accepts fewer values (a bound tightened, an enum value or the setting itself removed): a client requesting a value the old definition allowed is refused by a peer validating with the new one (DASP-EXT-002).',
    example: { old: '"grant_bytes": { "type": "integer", "maximum": 16384, ... }', new: '"grant_bytes": { "type": "integer", "maximum": 8192, ... }' },
    mirror: { rule: 'dasp-setting-widened' },
  },
  {
    id: 'dasp-setting-widened',
    levels: ['breaking'],
    audiences: ['host'],
    summary:
      'A setting accepts more values (a bound loosened, an enum value or a setting added): a host validating with the old definition refuses what a new client may request (DASP-EXT-002, 004).',
    example: {
      old: '"cipher": { "type": "enum", "values": ["xchacha20poly1305"], ... }',
      new: '"cipher": { "type": "enum", "values": ["xchacha20poly1305", "aes256gcm"], ... }',
    },
    mirror: { rule: 'dasp-setting-narrowed' },
  },
  {
    id: 'dasp-dependency-added',
    levels: ['breaking'],
    audiences: PEERS,
    summary:
      'A definition requires another extension: the requested set must hold every required dependency and none may be added after confirmation (DASP-EXT-002). Saved sessions still reopen: their floor records the dependency requirements they were created with, and a new one is a requirement beyond it (DASP-EXT-005).',
    example: { old: '"dependencies": []', new: '"dependencies": [{ "uri": "urn:example:ext:enc", "version": "1", "scope": "connection" }]' },
    mirror: { rule: 'dasp-dependency-removed' },
  },
  {
    id: 'dasp-dependency-removed',
    levels: ['breaking'],
    audiences: ALL,
    summary:
      'A definition no longer requires a dependency: peers must not silently remove a dependency (DASP-EXT-002), and saved sessions recorded it: their floor refuses a selection without it (DASP-EXT-005).',
    example: { old: '"dependencies": [{ "uri": "urn:example:ext:enc", "version": "1", "scope": "connection" }]', new: '"dependencies": []' },
    mirror: { rule: 'dasp-dependency-added' },
  },
  {
    id: 'dasp-operation-added',
    levels: ['breaking'],
    audiences: PEERS,
    summary:
      'An extension now affects another operation: peers that did not enforce it there fail (DASP-EXT-006). Saved sessions still reopen: enforcement on one more operation is beyond their floor (DASP-EXT-005).',
    example: { old: '"operations": ["dasp.v1.command"]', new: '"operations": ["dasp.v1.command", "dasp.v1.read"]' },
    mirror: { rule: 'dasp-operation-removed' },
  },
  {
    id: 'dasp-operation-removed',
    levels: ['breaking'],
    audiences: ALL,
    summary:
      'An extension no longer affects an operation: a peer still requiring its evidence there refuses the other (DASP-EXT-006), and the saved floor differs (DASP-EXT-005).',
    example: { old: '"operations": ["dasp.v1.command", "dasp.v1.read"]', new: '"operations": ["dasp.v1.command"]' },
    mirror: { rule: 'dasp-operation-added' },
  },
  {
    id: 'dasp-support-removed',
    levels: ['breaking'],
    audiences: ['client'],
    summary:
      'A definition no longer supports a core, profile, binding or scope: a selection of it with that contract or scope must now fail (DASP-EXT-002, 003), so an old client that selects it there is refused; a new client never asks for it.',
    example: { old: '"scopes": ["session", "command"]', new: '"scopes": ["session"]' },
    mirror: { rule: 'dasp-support-added' },
  },
  {
    id: 'dasp-support-added',
    levels: ['breaking'],
    audiences: ['host'],
    summary:
      'A definition supports another core, profile, binding or scope: a new client may select it there, and a host that validates with the old definition refuses that selection (DASP-EXT-002, 003), as for a setting widened; no existing selection changes.',
    example: { old: '"scopes": ["session"]', new: '"scopes": ["session", "command"]' },
    mirror: { rule: 'dasp-support-removed' },
  },
  {
    id: 'dasp-attribute-added',
    levels: ['breaking', 'warning'],
    audiences: ALL,
    summary:
      'An extension defines a new attribute: a required one breaks senders of its event types, since receivers fail missing required evidence (DASP-EXT-006), and a required saved one breaks recovery of saved events (DASP-EXT-008); an optional one is a warning, since an optional attribute addition alone is not proof of compatibility (DASP-EXT-008).',
    example: {
      old: '"attributes": []',
      new: '"attributes": [{ "name": "exauth", "type": "String", "on": ["dasp.v1.command"], "required": true, "class": "delivery" }]',
    },
    mirror: { rule: 'dasp-attribute-removed' },
  },
  {
    id: 'dasp-attribute-removed',
    levels: ['breaking', 'warning'],
    audiences: ALL,
    summary:
      'An extension no longer defines an attribute: receivers that require it refuse events without it (DASP-EXT-006), and a required saved attribute is part of saved event interpretation (DASP-EXT-006, 008); an optional one is a warning.',
    example: { old: '"attributes": [{ "name": "exauth", ..., "required": true }]', new: '"attributes": []' },
    mirror: { rule: 'dasp-attribute-added' },
  },
  {
    id: 'dasp-attribute-type-changed',
    levels: ['breaking'],
    audiences: ALL,
    summary:
      "An attribute's CloudEvents type changed: values one peer sends fail the other's check (DASP-EXT-006). A type that takes every value the old one took (URI to URI-reference or String; Binary or Timestamp to String) breaks only receivers, one that takes fewer only senders and saved events holding what it refuses (saved event interpretation must survive upgrades, DASP-EXT-008), any other change both.",
    example: { old: '{ "name": "exseq", "type": "Integer", ... }', new: '{ "name": "exseq", "type": "String", ... }' },
  },
  {
    id: 'dasp-attribute-required-changed',
    levels: ['breaking'],
    audiences: ALL,
    summary:
      'An attribute became required (breaks its senders) or optional (breaks receivers that require it): required missing evidence must fail (DASP-EXT-006); for a saved attribute, recovery of saved events too (DASP-EXT-008).',
    example: { old: '{ "name": "exauth", ..., "required": false }', new: '{ "name": "exauth", ..., "required": true }' },
  },
  {
    id: 'dasp-attribute-placement-changed',
    levels: ['breaking'],
    audiences: ALL,
    summary:
      'An attribute is allowed on other event types: it is prohibited on types outside its placement, and required where it is required (DASP-EXT-006, 007); for a required saved attribute, saved events differ.',
    example: { old: '{ "name": "exauth", "on": ["dasp.v1.command"], ... }', new: '{ "name": "exauth", "on": ["dasp.v1.command", "dasp.v1.read"], ... }' },
  },
  {
    id: 'dasp-attribute-class-changed',
    levels: ['breaking'],
    audiences: ALL,
    summary:
      'An attribute moved between saved event data and delivery metadata: saved attributes are kept on replay and part of duplicate comparison, delivery metadata is not (DASP-EXT-006).',
    example: { old: '{ "name": "exseq", ..., "class": "delivery" }', new: '{ "name": "exseq", ..., "class": "saved" }' },
  },
  {
    id: 'dasp-policy-requirement-added',
    levels: ['breaking', 'info'],
    audiences: ['client'],
    summary:
      'Host policy requires another extension: the host must refuse a request that omits it (DASP-EXT-004), which a client built from the old selection does; info when the old selection already requested it.',
    example: { old: '"policy": { "requires": [] }', new: '"policy": { "requires": [{ "uri": "urn:example:ext:enc", "version": "1" }] }' },
    mirror: { rule: 'dasp-policy-requirement-removed' },
  },
  {
    id: 'dasp-policy-requirement-removed',
    levels: ['info'],
    audiences: [],
    summary: 'Host policy no longer requires an extension: every request the old policy accepted is still accepted (requests still carry what they select).',
    example: { old: '"policy": { "requires": [{ "uri": "urn:example:ext:enc", "version": "1" }] }', new: '"policy": { "requires": [] }' },
    mirror: { rule: 'dasp-policy-requirement-added' },
  },
  {
    id: 'dasp-definition-changed-in-place',
    levels: ['warning'],
    audiences: PEERS,
    summary:
      'A definition changed while its identity and content pin did not: published version content must be immutable and the pin must cover all normative sources (DASP-EXT-002, 008); peers holding either copy may disagree.',
    example: { old: '"processing": "Authenticate, then check the grant."', new: '"processing": "Check the grant, then authenticate."' },
  },
]

/**
 * The schema engine's rules as they reach DASP parties: an array setting's element schema is what
 * the client sends in its request (`sender`) and the host validates (`receiver`).
 */
export const DASP_SCHEMA_RULES: readonly DiffRule[] = SCHEMA_DIFF_RULES.map((rule) => ({
  ...rule,
  audiences: rule.audiences.map((a) => (a === 'receiver' ? 'host' : a === 'sender' ? 'client' : a)),
  summary: `${rule.summary} (DASP: an array setting's items; the client sends them, the host validates them.)`,
}))

export const DASP_DIFF_RULES: readonly DiffRule[] = [...DASP_OWN_RULES, ...DASP_SCHEMA_RULES]
