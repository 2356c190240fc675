import { escapePointerToken } from '../json/pointer'
import { fieldName, isPlainObject, quote } from '../json/pointer'
import type { Finding } from './validation/finding'
import { closestMatch } from '../json/closest-match'

const ABSOLUTE_HTTP_URL = /^https?:\/\/[^\s/?#@]+(?:[/?#]\S*)?$/i
const URL_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/

/** True for an absolute http or https URL with a host, such as `https://api.example.com/v1`. */
function isAbsoluteHttpUrl(value: string): boolean {
  return ABSOLUTE_HTTP_URL.test(value)
}

/** True for a relative path such as `openapi.json` or `/specs/api.yaml`: no scheme, no host, no outer spaces. */
function isRelativePath(value: string): boolean {
  return value !== '' && value.trim() === value && !URL_SCHEME.test(value) && !value.startsWith('//')
}

/**
 * The rules that relate fields to each other or look inside strings, beyond what the schema's types say.
 * Runs on the parsed value before defaults are filled in and skips anything of the wrong type (the schema
 * walk has already reported it).
 */
export function checkCrossFieldRules(config: unknown, findings: Finding[]): void {
  if (!isPlainObject(config)) return
  callToActionNeedsName(config.topbarCtaButton, findings)
  anchorVersionsAreDeclared(config.anchors, config.versions, findings)
  const api = config.api
  if (isPlainObject(api)) eachString(api.baseUrl, '/api/baseUrl', findings, baseUrlIsAbsolute)
  eachString(config.openapi, '/openapi', findings, openapiIsUrlOrPath)
  const socials = config.footerSocials
  if (isPlainObject(socials)) {
    for (const key of Object.keys(socials)) {
      const url = socials[key]
      if (typeof url === 'string' && !isAbsoluteHttpUrl(url)) {
        const path = `/footerSocials/${escapePointerToken(key)}`
        findings.push(
          error(
            path,
            `${fieldName(path, 'docs.json')}: ${quote(url)} is not an absolute http(s) URL; use a full URL such as "https://example.com/acme"`,
            'an absolute http(s) URL',
            quote(url),
          ),
        )
      }
    }
  }
}

function callToActionNeedsName(button: unknown, findings: Finding[]): void {
  if (!isPlainObject(button) || button.name !== undefined) return
  // Defaults are filled in later; a missing type is a link.
  if ((button.type === undefined ? 'link' : button.type) !== 'link') return
  findings.push({
    severity: 'error',
    path: '/topbarCtaButton/name',
    at: '/topbarCtaButton',
    part: 'value',
    message: 'topbarCtaButton.name is required when topbarCtaButton.type is "link" (the default type)',
    expected: 'a string',
  })
}

function anchorVersionsAreDeclared(anchors: unknown, versions: unknown, findings: Finding[]): void {
  if (!Array.isArray(anchors)) return
  const declared = Array.isArray(versions) ? versions.filter((version) => typeof version === 'string') : []
  for (let index = 0; index < anchors.length; index++) {
    const anchor: unknown = anchors[index]
    if (!isPlainObject(anchor) || typeof anchor.version !== 'string' || declared.includes(anchor.version)) continue
    const path = `/anchors/${index}/version`
    const rule =
      declared.length === 0
        ? 'is not declared in versions, which is empty or missing'
        : `is not one of the versions (${declared.join(', ')})`
    const suggestion = closestMatch(anchor.version, declared)
    // A warning, not an error: Mintlify publishes such a file (its check covers versions in navigation only).
    findings.push({
      ...error(
        path,
        `${fieldName(path, 'docs.json')}: ${quote(anchor.version)} ${rule}; the anchor shows with no version selected`,
        'a version listed in versions',
        quote(anchor.version),
      ),
      severity: 'warning',
      ...(suggestion !== undefined ? { suggestion } : {}),
    })
  }
}

function baseUrlIsAbsolute(value: string, path: string): Finding | undefined {
  if (isAbsoluteHttpUrl(value)) return undefined
  return error(
    path,
    `${fieldName(path, 'docs.json')}: ${quote(value)} is not an absolute URL; use a full URL such as "https://api.example.com"`,
    'an absolute http(s) URL',
    quote(value),
  )
}

function openapiIsUrlOrPath(value: string, path: string): Finding | undefined {
  if (value === '')
    return error(
      path,
      `${fieldName(path, 'docs.json')} is empty; give a URL or a relative path of an OpenAPI file`,
      'a non-empty URL or relative path',
      '""',
    )
  if (isAbsoluteHttpUrl(value) || isRelativePath(value)) return undefined
  return error(
    path,
    `${fieldName(path, 'docs.json')}: ${quote(value)} is neither an absolute http(s) URL nor a relative path`,
    'an absolute http(s) URL or a relative path',
    quote(value),
  )
}

/** Applies `check` to a string, or to each string of an array, at the right pointer. */
function eachString(
  value: unknown,
  pointer: string,
  findings: Finding[],
  check: (value: string, path: string) => Finding | undefined,
): void {
  if (typeof value === 'string') {
    const finding = check(value, pointer)
    if (finding !== undefined) findings.push(finding)
  } else if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const item = value[index]
      const finding = typeof item === 'string' ? check(item, `${pointer}/${index}`) : undefined
      if (finding !== undefined) findings.push(finding)
    }
  }
}

function error(path: string, message: string, expected: string, received: string): Finding {
  return { severity: 'error', path, at: path, part: 'value', message, expected, received }
}
