#!/usr/bin/env python3
"""Render, parse and filter vectors for the NATS subject value objects, computed from
subjects.asyncapi.json by this independent implementation of the profile's token domains and NATS
subject matching (sharing no code with src/). Both targets are held to them: the TypeScript runtime
(runner.test.ts) and the generated Rust crate (test/rust-target.test.ts).

    python3 make_subject_vectors.py          # writes subject-vectors.json
    python3 make_subject_vectors.py --check  # recomputes and compares
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ALPHABETS = {
    'lower': set('abcdefghijklmnopqrstuvwxyz0123456789_-'),
    'ascii': set('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-'),
    'hex': set('0123456789abcdef'),
}
BASE = ALPHABETS['ascii']


def in_domain(t, v):
    if t['kind'] == 'enum':
        return v in t['values']
    if not (t['minLength'] <= len(v.encode()) <= t['maxLength']) or not v.startswith(t['prefix']):
        return False
    rest = v[len(t['prefix']):]
    if t['first'] == 'letter' and not (rest[:1].isascii() and rest[:1].isalpha()):
        return False
    return all(c in ALPHABETS[t['alphabet']] for c in rest)


def samples(t):
    """Valid values first, then invalid ones."""
    if t['kind'] == 'enum':
        return list(t['values']), ['zz', '', 'eu.us', 'EU']
    p, lo, hi = t['prefix'], t['minLength'], t['maxLength']
    fill = 'b' if t['alphabet'] != 'hex' or t['first'] == 'letter' else '7'
    first = 'a' if t['first'] == 'letter' else fill
    short = p + first + fill * max(0, lo - len(p) - 1)
    long = p + first + fill * max(0, hi - len(p) - 1)
    valid = [v for v in [short, long] if in_domain(t, v)]
    invalid = [short[:-1] if len(short) > 1 else '', long + fill, (p + '*' + fill * lo)[:hi], 'x.y', (p or 'q') + 'Ω' + fill * lo]
    return valid, [v for v in invalid if not in_domain(t, v)]


def template(text):
    return [('param', t[1:-1]) if t.startswith('{') and t.endswith('}') else ('lit', t) for t in text.split('.')]


def render(tokens, params, types):
    out = []
    for kind, value in tokens:
        if kind == 'lit':
            out.append(value)
        else:
            v = params.get(value)
            if v is None or not in_domain(types[value], v):
                return None
            out.append(v)
    return '.'.join(out)


def parse(tokens, subject, types):
    parts = subject.split('.')
    if len(parts) != len(tokens):
        return None
    params = {}
    for (kind, value), part in zip(tokens, parts):
        if kind == 'lit':
            if part != value:
                return None
        elif not in_domain(types[value], part):
            return None
        else:
            params[value] = part
    return params


def filter_matches(text, subject, types):
    pattern = text.split('.')
    parts = subject.split('.')
    if any(p == '' for p in parts):
        return False
    bound = {}
    for i, p in enumerate(pattern):
        if p == '>':
            return len(parts) > i
        if i >= len(parts):
            return False
        part = parts[i]
        if p == '*':
            continue
        if p.startswith('{'):
            name = p[1:-1]
            if not all(c in BASE for c in part) or not in_domain(types[name], part) or bound.get(name, part) != part:
                return False
            bound[name] = part
        elif p != part:
            return False
    return len(parts) == len(pattern)


def vectors():
    doc = json.load(open(os.path.join(HERE, 'subjects.asyncapi.json')))
    profile = doc['x-nats-contract']
    all_types = profile['tokenTypes']
    out = []
    for cid in sorted(doc['channels']):
        address = doc['channels'][cid]['address']
        tokens = template(address)
        types = {p: all_types[t] for p, t in profile['channels'][cid]['parameters'].items()}
        names = sorted(types)
        valid = {p: samples(types[p])[0] for p in names}
        invalid = {p: samples(types[p])[1] for p in names}
        base = {p: valid[p][0] for p in names}
        renders = [dict(base)]
        for p in names:
            for v in valid[p][1:]:
                renders.append({**base, p: v})
            for v in invalid[p]:
                renders.append({**base, p: v})
        render_cases = [{'params': r, 'subject': render(tokens, r, types)} for r in renders]
        good = [c['subject'] for c in render_cases if c['subject'] is not None]
        subjects = list(good)
        for s in good[:2]:
            subjects += [s + '.extra', s.rsplit('.', 1)[0], 'x' + s, s.replace('.', '..', 1), s + '.']
        subjects += ['', '.', address]
        parse_cases = [{'subject': s, 'params': parse(tokens, s, types)} for s in dict.fromkeys(subjects)]
        filters = []
        for fname in sorted(profile['channels'][cid].get('filters', {})):
            text = profile['channels'][cid]['filters'][fname]
            ftokens = [('param', t[1:-1]) if t.startswith('{') else ('lit', t) for t in text.split('.')]
            fparams = sorted({v for k, v in ftokens if k == 'param'})
            frenders = []
            for r in renders:
                sub = {p: r[p] for p in fparams}
                ok = all(in_domain(types[p], sub[p]) for p in fparams)
                frenders.append({'params': sub, 'subject': '.'.join(sub[v] if k == 'param' else v for k, v in ftokens) if ok else None})
            frenders = [dict(t) for t in {json.dumps(f, sort_keys=True): f for f in frenders}.values()]
            matches = [{'subject': s, 'matches': filter_matches(text, s, types)} for s in dict.fromkeys(subjects + ['shop.eu', 'shop', 'shop.eu.x.y.z', 'shop.eu.ord-abcdef.placed.more'])]
            filters.append({'name': fname, 'template': text, 'render': frenders, 'matches': matches})
        out.append({'channel': cid, 'address': address, 'render': render_cases, 'parse': parse_cases, 'filters': filters})
    return {'$comment': 'Computed by make_subject_vectors.py from subjects.asyncapi.json, independently of src/.', 'channels': out}


if __name__ == '__main__':
    text = json.dumps(vectors(), indent=2, ensure_ascii=False) + '\n'
    target = os.path.join(HERE, 'subject-vectors.json')
    if '--check' in sys.argv:
        if open(target, encoding='utf-8').read() != text:
            sys.exit('subject-vectors.json differs from what make_subject_vectors.py computes')
        print('subject-vectors.json: ok')
    else:
        open(target, 'w', encoding='utf-8').write(text)
        print('wrote', target)
