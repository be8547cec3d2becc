#!/usr/bin/env python3
"""A second, independent implementation of the Benzene contract hash, scope and closure rules.

It shares no code with the TypeScript compiler: projections, normalize(), the closure walk and
RFC 8785 canonical JSON (key order by UTF-16 code units, ECMAScript number formatting, minimal
string escaping) are written here from the Benzene Contract Document (section 6), on Python's standard library.

  python3 benzene_independent.py --write   fill expect.canonical / expect.hash in the hash cases
  python3 benzene_independent.py --check   recompute everything and fail on any difference
                                           (hash cases, and the scope/closure document cases)
"""
import hashlib
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
HASH_CASES = os.path.join(HERE, '..', 'contract-hash-cases.json')
DOCUMENT_CASES = os.path.join(HERE, '..', 'contract-document-cases.json')
PREFIX = '#/components/schemas/'


# --- RFC 8785 -------------------------------------------------------------------------------

def es_number(x):
    """ECMAScript Number::toString for a finite double (RFC 8785 section 3.2.2.3)."""
    if isinstance(x, bool):
        raise TypeError('bool is not a number')
    x = float(x)
    if math.isnan(x) or math.isinf(x):
        raise ValueError('JCS has no NaN or Infinity')
    if x == 0:
        return '0'
    if x < 0:
        return '-' + es_number(-x)
    # repr() gives the shortest digits that round-trip, as ECMAScript requires.
    mantissa, _, exponent = repr(x).partition('e')
    int_part, _, frac_part = mantissa.partition('.')
    digits = (int_part + frac_part).lstrip('0')
    # value = 0.digits * 10^n, i.e. digits * 10^(n - k)
    n = len(int_part.lstrip('0')) + int(exponent or 0) if int_part.strip('0') else int(exponent or 0) - (len(frac_part) - len(frac_part.lstrip('0')))
    digits = digits.rstrip('0')
    k = len(digits)
    if k <= n <= 21:
        return digits + '0' * (n - k)
    if 0 < n <= 21:
        return digits[:n] + '.' + digits[n:]
    if -6 < n <= 0:
        return '0.' + '0' * (-n) + digits
    e = n - 1
    sign = '+' if e >= 0 else '-'
    head = digits[0] + ('.' + digits[1:] if k > 1 else '')
    return head + 'e' + sign + str(abs(e))


SHORT = {'"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t'}


def jcs_string(s):
    out = ['"']
    for ch in s:
        if ch in SHORT:
            out.append(SHORT[ch])
        elif ord(ch) < 0x20:
            out.append('\\u%04x' % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return ''.join(out)


def utf16_key(s):
    return s.encode('utf-16-be')


def jcs(value):
    if value is None:
        return 'null'
    if value is True:
        return 'true'
    if value is False:
        return 'false'
    if isinstance(value, (int, float)):
        return es_number(value)
    if isinstance(value, str):
        return jcs_string(value)
    if isinstance(value, list):
        return '[' + ','.join(jcs(v) for v in value) + ']'
    if isinstance(value, dict):
        keys = sorted(value.keys(), key=utf16_key)
        return '{' + ','.join(jcs_string(k) + ':' + jcs(value[k]) for k in keys) + '}'
    raise TypeError(type(value))


# --- Benzene rules ----------------------------------------------------------------------------

def reserved(entry):
    return entry.get('reserved') is True or entry['topic'].startswith('benzene:')


def ref_name(schema):
    ref = schema.get('$ref') if isinstance(schema, dict) else None
    if not isinstance(ref, str) or not ref.startswith(PREFIX):
        return None
    token = ref[len(PREFIX):]
    if token == '' or '/' in token:
        return None
    return token.replace('~1', '/').replace('~0', '~')


def closure(roots, catalogue):
    reached = []

    def walk(schema):
        if not isinstance(schema, dict):
            return
        name = ref_name(schema)
        if name is not None and name not in reached:
            reached.append(name)
            if name in catalogue:
                walk(catalogue[name])
        if 'items' in schema:
            walk(schema['items'])
        if isinstance(schema.get('additionalProperties'), dict):
            walk(schema['additionalProperties'])
        for child in (schema.get('properties') or {}).values():
            walk(child)
        for key in ('allOf', 'anyOf', 'oneOf'):
            for child in schema.get(key) or []:
                walk(child)

    for root in roots:
        walk(root)
    return sorted(reached, key=utf16_key)


def find_entry(doc, topic, version):
    matches = [e for e in doc['requests'] if e['topic'] == topic and e.get('version') == version]
    if len(matches) != 1:
        raise ValueError('no single entry for %s %s' % (topic, version))
    return matches[0]


def project(doc, projection):
    """Returns (document, topic_scoped)."""
    if projection == 'whole-service':
        return doc, False
    if 'topics' in projection:
        wanted = set(projection['topics'])
        d = dict(doc)
        d['requests'] = [e for e in doc['requests'] if e['topic'] in wanted]
        return d, False
    entry = find_entry(doc, projection['topic'], projection.get('version'))
    names = closure([entry['request'], entry['response']], doc['components']['schemas'])
    d = dict(doc)
    d['requests'] = [entry]
    d['events'] = []
    d['components'] = dict(doc['components'])
    d['components']['schemas'] = {n: doc['components']['schemas'][n] for n in names}
    return d, True


def normalize(doc, topic_scoped):
    d = {k: v for k, v in doc.items() if k not in ('messageEndpoint', 'transports')}
    requests = d['requests'] if topic_scoped else [e for e in d['requests'] if not reserved(e)]
    d['requests'] = [{k: v for k, v in e.items() if k not in ('example', 'reserved')} for e in requests]
    d['events'] = [{k: v for k, v in e.items() if k != 'example'} for e in d['events']]
    return d


def hash_case(documents, case):
    doc, scoped = project(documents[case['document']], case['projection'])
    canonical = jcs(normalize(doc, scoped))
    return canonical, 'sha256:' + hashlib.sha256(canonical.encode('utf-8')).hexdigest()


def scope(doc, include_list, include_reserved):
    valid = []
    for e in doc['requests']:
        if e['topic'] not in valid:
            valid.append(e['topic'])
    wanted = [t for t in (include_list or []) if t != '']
    if not wanted:
        return {'topics': [e['topic'] for e in doc['requests'] if include_reserved or not reserved(e)]}
    unknown = [t for t in dict.fromkeys(wanted) if t not in valid]
    if unknown:
        return {'error': {'unknownTopics': unknown, 'validTopics': valid}}
    return {'topics': [e['topic'] for e in doc['requests'] if e['topic'] in wanted]}


def main(mode):
    failures = []
    with open(HASH_CASES, encoding='utf-8') as f:
        hash_file = json.load(f)
    by_name = {}
    for case in hash_file['cases']:
        canonical, digest = hash_case(hash_file['documents'], case)
        by_name[case['name']] = digest
        if mode == '--write':
            case['expect']['canonical'] = canonical
            case['expect']['hash'] = digest
        elif case['expect'].get('canonical') != canonical or case['expect'].get('hash') != digest:
            failures.append('hash case %r: expected %s, computed %s' % (case['name'], case['expect'].get('hash'), digest))
    for case in hash_file['cases']:
        same, different = case['expect'].get('sameHashAs'), case['expect'].get('differentHashFrom')
        if same and by_name[same] != by_name[case['name']]:
            failures.append('hash case %r: not the same hash as %r' % (case['name'], same))
        if different and by_name[different] == by_name[case['name']]:
            failures.append('hash case %r: same hash as %r' % (case['name'], different))

    with open(DOCUMENT_CASES, encoding='utf-8') as f:
        doc_file = json.load(f)
    for case in doc_file['cases']:
        doc = case['document']
        doc = doc_file['documents'][doc] if isinstance(doc, str) else doc
        if case['kind'] == 'scope':
            got = scope(doc, case.get('includeList'), case.get('includeReserved', False))
            if got != case['expect']:
                failures.append('scope case %r: computed %s' % (case['name'], json.dumps(got)))
        elif case['kind'] == 'closure':
            entry = find_entry(doc, case['topic'], case.get('version'))
            got = closure([entry['request'], entry['response']], doc['components']['schemas'])
            if got != case['expect']['schemas']:
                failures.append('closure case %r: computed %s' % (case['name'], got))

    if mode == '--write':
        with open(HASH_CASES, 'w', encoding='utf-8') as f:
            json.dump(hash_file, f, ensure_ascii=False, indent=2)
            f.write('\n')
    for line in failures:
        print(line, file=sys.stderr)
    print('%d passed, %d failed' % (len(hash_file['cases']) + len(doc_file['cases']) - len(failures), len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    if len(sys.argv) != 2 or sys.argv[1] not in ('--write', '--check'):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
