import type { DocsConfig } from '../docs-format/docs-json'
import { cssUrl } from './html'
import { imageUrl } from './links'

/**
 * docs.json's `colors` and `backgroundImage` as CSS custom properties for both modes. The site's stylesheet
 * (assets/site.css) only ever reads these variables, so one fixed stylesheet serves every config.
 *
 * Accessibility decision: `primary` is used as given for accents (borders, the current page's marker,
 * buttons, anchor icons), but text drawn in it (links) is darkened or lightened until it reaches WCAG AA's
 * 4.5:1 against the mode's background, and text on a primary button is black or white, whichever reads.
 * A docs.json whose brand colour is light green would otherwise give unreadable links.
 */

/** Mintlify's own fallbacks, so an unset field still shows a sensible theme. */
const DEFAULT_PRIMARY = '#16A34A'
const DEFAULT_BACKGROUND = { light: '#FFFFFF', dark: '#0F1117' }

type CurrentBackground = { color?: { light?: string; dark?: string }; image?: string | { light: string; dark: string } }

/** The `<style>` contents for `config`; every colour in it passed docs.json's hex pattern. */
export function themeCss(config: DocsConfig): string {
  const colors = config.colors
  const primaryLight = normalizeHex(colors?.primary ?? DEFAULT_PRIMARY)
  const primaryDark = normalizeHex(colors?.light ?? colors?.primary ?? DEFAULT_PRIMARY)
  const important = normalizeHex(colors?.dark ?? colors?.primary ?? DEFAULT_PRIMARY)
  // The current docs.json shape says `background: {color, image}` where the spec shape says colors.background and
  // backgroundImage.
  const current = (config as { background?: CurrentBackground }).background
  const background = {
    light: normalizeHex(colors?.background?.light ?? current?.color?.light ?? DEFAULT_BACKGROUND.light),
    dark: normalizeHex(colors?.background?.dark ?? current?.color?.dark ?? DEFAULT_BACKGROUND.dark),
  }
  const mode = (name: 'light' | 'dark', primary: string) => {
    const bg = background[name]
    const text = luminance(bg) > 0.4 ? '#111827' : '#E5E7EB'
    const muted = luminance(bg) > 0.4 ? '#4B5563' : '#9CA3AF'
    const panel = mix(bg, text, 0.05)
    return [
      `--primary:${primary}`,
      `--primary-text:${readableOn(primary, bg)}`,
      `--on-primary:${onColour(primary)}`,
      `--important:${important}`,
      `--on-important:${onColour(important)}`,
      `--bg:${bg}`,
      `--panel:${panel}`,
      `--border:${mix(bg, text, 0.15)}`,
      `--text:${text}`,
      `--muted:${muted}`,
      `--code-bg:${mix(bg, text, 0.07)}`,
    ].join(';')
  }
  const currentImage = current?.image
  const imageSource = imageUrl(
    config.backgroundImage ?? (typeof currentImage === 'object' ? currentImage.light : currentImage),
  )
  const image = imageSource === undefined ? '' : `body{background-image:${cssUrl(imageSource)}}`
  return `:root,[data-mode="light"]{${mode('light', primaryLight)}}[data-mode="dark"]{${mode('dark', primaryDark)};color-scheme:dark}${image}`
}

/** An anchor's icon background: its colour, its gradient, or the primary colour. */
export function anchorBackground(color: string | { from: string; to: string } | undefined): string {
  if (color === undefined) return 'var(--primary)'
  if (typeof color === 'string') return normalizeHex(color)
  return `linear-gradient(45deg,${normalizeHex(color.from)},${normalizeHex(color.to)})`
}

/** The icon colour on an anchor's background: black or white, by the background (or the gradient's start). */
export function anchorForeground(color: string | { from: string; to: string } | undefined): string {
  if (color === undefined) return 'var(--on-primary)'
  return onColour(normalizeHex(typeof color === 'string' ? color : color.from))
}

/** `#abc` → `#AABBCC`; docs.json's pattern guarantees #RGB or #RRGGBB. */
function normalizeHex(value: string): string {
  const hex = value.slice(1)
  const full = hex.length === 3 ? [...hex].map((digit) => digit + digit).join('') : hex
  return `#${full.toUpperCase()}`
}

function channels(hex: string): [number, number, number] {
  const value = Number.parseInt(hex.slice(1), 16)
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255]
}

function toHex([r, g, b]: [number, number, number]): string {
  return `#${[r, g, b]
    .map((channel) => Math.round(channel).toString(16).padStart(2, '0'))
    .join('')
    .toUpperCase()}`
}

/** WCAG relative luminance. */
function luminance(hex: string): number {
  const [r, g, b] = channels(hex).map((channel) => {
    const c = channel / 255
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  }) as [number, number, number]
  return 0.2126 * r + 0.7152 * g + 0.0722 * b
}

/** WCAG contrast ratio of two colours. */
function contrast(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number]
  return (light + 0.05) / (dark + 0.05)
}

/** `a` moved `amount` (0–1) of the way to `b`. */
function mix(a: string, b: string, amount: number): string {
  const [from, to] = [channels(a), channels(b)]
  return toHex([0, 1, 2].map((i) => from[i]! + (to[i]! - from[i]!) * amount) as [number, number, number])
}

/** `colour`, moved toward black or white in small steps until it reads at 4.5:1 on `background`. */
function readableOn(colour: string, background: string): string {
  const target = luminance(background) > 0.4 ? '#000000' : '#FFFFFF'
  for (let step = 0; step <= 20; step++) {
    const candidate = mix(colour, target, step / 20)
    if (contrast(candidate, background) >= 4.5) return candidate
  }
  return target
}

/** Black or white text on `background`, whichever contrasts more. */
function onColour(background: string): string {
  return contrast('#000000', background) >= contrast('#FFFFFF', background) ? '#000000' : '#FFFFFF'
}
