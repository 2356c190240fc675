import { escapePointerToken, fieldName, isPlainObject, quote } from '../json/pointer'
import { DIVISIONS } from '../docs-format/current-shape/navigation'
import type { Finding } from './validation/finding'

/** What may hold the pages of a navigation level: the divisions, groups and pages. */
const HOLDERS = [...Object.keys(DIVISIONS), 'groups', 'pages']

/**
 * The current shape's rules beyond the schema's types: what Mintlify's unions of objects say (a tab needs
 * `tab`, a group `group`, the root navigation one of its holders), `$ref`s left unresolved, icon names.
 * Runs on the parsed value and skips anything of the wrong type (the schema walk has reported it).
 */
export function checkCurrentShapeRules(config: Record<string, unknown>, findings: Finding[]): void {
  const navigation = config.navigation
  if (isPlainObject(navigation)) {
    if (!HOLDERS.some((key) => navigation[key] !== undefined) && navigation.$ref === undefined) {
      findings.push({
        severity: 'error',
        path: '/navigation',
        at: '/navigation',
        part: 'value',
        message: `navigation: needs one of ${HOLDERS.join(', ')}`,
        expected: `an object with one of ${HOLDERS.join(', ')}`,
      })
    }
    checkLevel(navigation, '/navigation', findings, 0)
  }
  navbarLabels(config.navbar, '/navbar', findings)
  unresolvedReferences(config, '', findings, 0)
}

/** Deep enough for any real navigation; the parser has already refused anything deeper than the grammar allows. */
const MAX_LEVELS = 64

function checkLevel(level: Record<string, unknown>, pointer: string, findings: Finding[], depth: number): void {
  if (depth > MAX_LEVELS) return
  for (const [division, label] of [...Object.entries(DIVISIONS), ['groups', 'group'] as const]) {
    const items = level[division]
    if (!Array.isArray(items)) continue
    items.forEach((item, index) => {
      if (!isPlainObject(item)) return
      const at = `${pointer}/${division}/${index}`
      if (item[label] === undefined && item.$ref === undefined && item.sourceRef === undefined) {
        findings.push(missing(at, label, `each item of ${division} needs ${label}`))
      }
      checkLevel(item, at, findings, depth + 1)
    })
  }
  if (Array.isArray(level.pages)) {
    level.pages.forEach((page, index) => {
      if (!isPlainObject(page)) return
      const at = `${pointer}/pages/${index}`
      if (page.group === undefined && page.$ref === undefined) {
        findings.push(missing(at, 'group', 'an object in pages is a group and needs group (and pages)'))
      }
      checkLevel(page, at, findings, depth + 1)
    })
  }
  if (isPlainObject(level.global)) checkLevel(level.global, `${pointer}/global`, findings, depth + 1)
  navbarLabels(level.navbar, `${pointer}/navbar`, findings)
  iconName(level.icon, `${pointer}/icon`, findings)
}

function navbarLabels(navbar: unknown, pointer: string, findings: Finding[]): void {
  if (!isPlainObject(navbar)) return
  if (Array.isArray(navbar.links)) {
    navbar.links.forEach((link, index) => {
      if (!isPlainObject(link) || link.label !== undefined) return
      if (link.type === 'github' || link.type === 'discord') return
      findings.push(
        missing(`${pointer}/links/${index}`, 'label', 'a navbar link needs label unless its type is github or discord'),
      )
    })
  }
  const primary = navbar.primary
  if (isPlainObject(primary) && primary.type === 'button' && primary.label === undefined) {
    findings.push(missing(`${pointer}/primary`, 'label', 'a primary button of type button needs label'))
  }
}

function iconName(icon: unknown, pointer: string, findings: Finding[]): void {
  const name = isPlainObject(icon) ? icon.name : icon
  if (typeof name !== 'string' || !name.startsWith('fa-')) return
  const path = isPlainObject(icon) ? `${pointer}/name` : pointer
  findings.push({
    severity: 'error',
    path,
    at: path,
    part: 'value',
    message: `${fieldName(path, 'docs.json')}: ${quote(name)} starts with "fa-"; write the icon name without it`,
    expected: 'an icon name without the fa- prefix',
    received: quote(name),
    suggestion: name.slice(3),
  })
}

/**
 * A `$ref` is an include the CLI resolves relative to the file before sending; one left in the document
 * cannot be resolved here (there is no file to be relative to).
 */
function unresolvedReferences(value: unknown, pointer: string, findings: Finding[], depth: number): void {
  if (depth > MAX_LEVELS) return
  if (Array.isArray(value)) {
    value.forEach((item, index) => unresolvedReferences(item, `${pointer}/${index}`, findings, depth + 1))
    return
  }
  if (!isPlainObject(value)) return
  for (const key in value) {
    const at = `${pointer}/${escapePointerToken(key)}`
    if (key === '$ref' && typeof value[key] === 'string') {
      findings.push({
        severity: 'error',
        path: at,
        at,
        part: 'key',
        message:
          `${fieldName(at, 'docs.json')}: ${quote(value[key] as string)} is an include that was not resolved; ` +
          '`trellis docs validate` and `trellis docs push` resolve $ref relative to docs.json, so send the resolved document',
        received: quote(value[key] as string),
      })
    } else unresolvedReferences(value[key], at, findings, depth + 1)
  }
}

function missing(at: string, key: string, rule: string): Finding {
  const path = `${at}/${key}`
  return {
    severity: 'error',
    path,
    at,
    part: 'value',
    message: `${fieldName(path, 'docs.json')} is required: ${rule}`,
    expected: 'a string',
  }
}
