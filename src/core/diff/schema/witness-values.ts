/** Small values of every JSON type: the first candidates a witness search tries. */
export function representativeValues(): unknown[] {
  return [null, true, 0, 0.5, -1, '', 'a', [], {}]
}

/** A value of each JSON Schema type (`integer` and a non-integer `number` apart). */
export const TYPE_REPRESENTATIVES: Readonly<Record<string, readonly unknown[]>> = {
  null: [null],
  boolean: [true, false],
  object: [{}],
  array: [[]],
  string: ['', 'a'],
  int: [0, 1, -1],
  frac: [0.5, -0.5],
}
