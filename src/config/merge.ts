/** Deep merge of user-facing config objects: defaults < perfgate.yml < inputs/flags. */

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Objects merge key by key; arrays and scalars in `top` replace what is below (a scenarios
 * input replaces the file's list rather than appending to it). `undefined` in `top` means
 * "not given" (an unset flag), so it never erases a file value; `null` does replace.
 */
export function deepMerge(base: unknown, top: unknown): unknown {
  if (top === undefined) return base;
  if (!isPlainObject(top)) return top;
  const merged: Record<string, unknown> = isPlainObject(base) ? { ...base } : {};
  for (const [key, value] of Object.entries(top)) {
    if (value === undefined) continue;
    // defineProperty, not assignment: a "__proto__" key from YAML must stay a plain key.
    Object.defineProperty(merged, key, {
      value: deepMerge(Object.hasOwn(merged, key) ? merged[key] : undefined, value),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return merged;
}

/** The value at a key path, or undefined where the path leaves the data. */
export function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let node = root;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    if (!Object.hasOwn(node, key)) return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}
