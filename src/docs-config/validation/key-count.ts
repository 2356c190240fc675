/**
 * The two key counts whose difference reveals duplicate keys, which JSON.parse drops silently: the keys
 * written in the text and the keys in the parsed value.
 */
import { MAX_DEPTH } from '../../json/grammar'
import type { Plan } from './plan'

/**
 * Native JSON.parse silently keeps the last of two equal keys, so the keys written in the text are counted
 * and compared with the keys parsed. In valid JSON a ":" outside strings follows, across whitespace, the
 * unescaped closing quote of a key; a ":" inside a string can only follow a quote that is escaped (an odd
 * run of backslashes). A mismatch sends the text to the scanner, which finds the duplicates precisely.
 */
export function keysInText(text: string): number {
  let keys = 0
  for (let colon = text.indexOf(':'); colon !== -1; colon = text.indexOf(':', colon + 1)) {
    let quote = colon - 1
    for (
      let code = text.charCodeAt(quote);
      code === 32 || code === 10 || code === 13 || code === 9;
      code = text.charCodeAt(--quote)
    );
    if (text.charCodeAt(quote) !== 34) continue
    let backslash = quote - 1
    while (text.charCodeAt(backslash) === 92) backslash--
    if ((quote - 1 - backslash) % 2 === 0) keys++
  }
  return keys
}

export const TOO_DEEP = -1

/** What {@link keysInValue} notes on its way, for the checks after it. */
export interface Walked {
  /** A number that is an integer at or beyond 2^53 (findUnstorableText reports it). */
  unsafeInteger: boolean
  /** A key the schema does not name, in a place the schema describes. */
  unknownKey: boolean
}

/**
 * The number of keys in the parsed value, or TOO_DEEP past {@link MAX_DEPTH} levels. JSON.parse accepts
 * any depth, but every later walk recurses, so this first walk is the gate.
 *
 * It visits every value, so it also notes, in `walked`, what would otherwise cost a walk or a scan of
 * its own: an integer beyond 2^53 (a regular expression over the text cost 11% of a typical
 * validation), and, following `plan` (the schema of `value`; undefined below an unknown key), whether
 * any key is unknown. For a value the compiled (open) schema accepts, that answers what the schema with
 * every object closed would, for a fraction of its cost (its `every(… includes …)` per object); for
 * any other value `unknownKey` means nothing, as the explaining walk then runs.
 */
export function keysInValue(value: unknown, plan: Plan | undefined, depth: number, walked: Walked): number {
  if (typeof value === 'object' && value !== null) return keysIn(value, plan, depth, walked)
  noteNumber(value, walked)
  return 0
}

function noteNumber(value: unknown, walked: Walked): void {
  if (typeof value === 'number' && !Number.isSafeInteger(value) && Number.isInteger(value)) walked.unsafeInteger = true
}

/**
 * A key is looked up in the plan only when it differs from the key at the same place in the last object
 * of this plan: a Map lookup per key cost more than the closed check this walk replaces, while objects of
 * one kind mostly list their keys in one order, and comparing two equal property names is nearly free.
 * Values that are not objects are handled in the loops, not by a call each (a sixth of this walk).
 */
function keysIn(value: object, plan: Plan | undefined, depth: number, walked: Walked): number {
  if (depth >= MAX_DEPTH) return TOO_DEEP
  // Union branches differ by JSON type, as the validator's walks choose them.
  if (plan !== undefined && plan.kind === 'union') plan = Array.isArray(value) ? plan.arrayBranch : plan.objectBranch
  let count = 0
  if (Array.isArray(value)) {
    const items = plan !== undefined && plan.kind === 'array' ? plan.items : undefined
    for (const item of value) {
      if (typeof item !== 'object' || item === null) {
        noteNumber(item, walked)
        continue
      }
      const inner = keysIn(item, items, depth + 1, walked)
      if (inner === TOO_DEEP) return TOO_DEEP
      count += inner
    }
    return count
  }
  const object = plan !== undefined && plan.kind === 'object' ? plan : undefined
  let index = 0
  for (const key in value) {
    count++
    let property: Plan | undefined
    if (object !== undefined) {
      const recent = object.recentKeys
      if (recent[index] === key) property = object.recentPlans[index]
      else {
        property = object.properties.get(key)
        if (property === undefined) walked.unknownKey = true
        // Only known keys are remembered, and without gaps.
        else if (index <= recent.length) {
          recent[index] = key
          object.recentPlans[index] = property
        }
      }
    }
    index++
    const item = (value as Record<string, unknown>)[key]
    if (typeof item !== 'object' || item === null) {
      noteNumber(item, walked)
      continue
    }
    const inner = keysIn(item, property, depth + 1, walked)
    if (inner === TOO_DEEP) return TOO_DEEP
    count += inner
  }
  return count
}
