/**
 * Sets `key` on `target` as an own, enumerable data property. Objects built from a document's keys
 * use this instead of `target[key] = value`: assigning `__proto__` would set the object's prototype
 * and lose the member (a payload schema's `properties: { __proto__: ... }` would vanish, and the
 * member go unchecked). O(1); never consults setters on the prototype chain.
 */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}
