import { unref } from '../../timers'

/**
 * Watches many streams for silence with one timer per interval length, instead of a timer per
 * stream: a gateway holding thousands of streams would otherwise arm and clear thousands of
 * timers, and each costs native memory and CPU. The sweep runs every quarter of the interval,
 * so a watched stream is told within 1 to 1.25 intervals of its last activity.
 *
 * @example
 * const watched = { lastActiveAt: performance.now(), onSilence: () => sendKeepAlive() }
 * const unwatch = watchSilence(15_000, watched)
 */
export type Watched = {
  /** `performance.now()` of the last activity; the watcher resets it when it calls `onSilence`. */
  lastActiveAt: number
  onSilence: () => void
}

type Group = { members: Set<Watched>; timer: ReturnType<typeof setInterval> | undefined }

const groups = new Map<number, Group>()

/** Calls `watched.onSilence()` whenever `ms` pass without activity, until the returned function is called. */
export function watchSilence(ms: number, watched: Watched): () => void {
  let group = groups.get(ms)
  if (!group) {
    group = { members: new Set(), timer: undefined }
    groups.set(ms, group)
  }
  group.members.add(watched)
  if (group.timer === undefined) group.timer = startSweeping(ms, group)
  const members = group.members
  return () => {
    members.delete(watched)
  }
}

function startSweeping(ms: number, group: Group): ReturnType<typeof setInterval> {
  const timer = setInterval(
    () => {
      // An empty group stops on its next sweep rather than at once, so that one stream after
      // another (a client at concurrency 1) does not arm and clear a timer each.
      if (group.members.size === 0) {
        clearInterval(timer)
        group.timer = undefined
        return
      }
      const now = performance.now()
      for (const watched of group.members) {
        if (now - watched.lastActiveAt < ms) continue
        watched.lastActiveAt = now
        watched.onSilence()
      }
    },
    Math.max(1, ms / 4),
  )
  // Open streams keep the process alive through their sockets; the sweep alone must not.
  return unref(timer)
}
