import { expect } from 'bun:test'

/*
 * The fields `@anthropic-ai/sdk` 1.14 types as always present (not optional, `null` allowed) on a
 * message, its content blocks, its usage and the stream events, read from the SDK's own type
 * definitions (resources/messages/messages.d.ts: Message, TextBlock, ToolUseBlock, ThinkingBlock,
 * Usage, MessageDeltaUsage, RawMessageDeltaEvent.Delta, Raw*Event). A client written against those
 * types may read any of them without a check.
 */

const MESSAGE = [
  'id',
  'type',
  'role',
  'model',
  'content',
  'stop_reason',
  'stop_sequence',
  'stop_details',
  'container',
  'diagnostics',
  'usage',
]
const USAGE = [
  'input_tokens',
  'output_tokens',
  'cache_creation_input_tokens',
  'cache_read_input_tokens',
  'cache_creation',
  'output_tokens_details',
  'server_tool_use',
  'service_tier',
  'inference_geo',
  'speed',
]
const DELTA_USAGE = [
  'input_tokens',
  'output_tokens',
  'cache_creation_input_tokens',
  'cache_read_input_tokens',
  'output_tokens_details',
  'server_tool_use',
]
const BLOCKS: Record<string, string[]> = {
  text: ['type', 'text', 'citations'],
  tool_use: ['type', 'id', 'name', 'input', 'caller'],
  thinking: ['type', 'thinking', 'signature'],
}
const DELTAS: Record<string, string[]> = {
  text_delta: ['type', 'text'],
  input_json_delta: ['type', 'partial_json'],
  thinking_delta: ['type', 'thinking'],
}

type Json = Record<string, unknown>

const keysOf = (value: unknown) => Object.keys(value as Json).sort()
const expectKeys = (value: unknown, keys: string[]) => expect(keysOf(value)).toEqual(expect.arrayContaining(keys))

/** A whole message (or message_start's) with every field the SDK types as always present. */
export function expectSdkMessage(message: Json): void {
  expectKeys(message, MESSAGE)
  expectKeys(message.usage, USAGE)
  for (const block of message.content as Json[]) expectSdkBlock(block)
}

function expectSdkBlock(block: Json): void {
  const keys = BLOCKS[block.type as string]
  expect(keys).toBeDefined()
  expectKeys(block, keys!)
}

/** One stream event with the fields the SDK types as always present for its type. */
function expectSdkEvent(event: Json): void {
  switch (event.type) {
    case 'message_start':
      return expectSdkMessage(event.message as Json)
    case 'content_block_start':
      expectKeys(event, ['index', 'content_block'])
      return expectSdkBlock(event.content_block as Json)
    case 'content_block_delta': {
      const delta = event.delta as Json
      expect(DELTAS[delta.type as string]).toBeDefined()
      return expectKeys(delta, DELTAS[delta.type as string]!)
    }
    case 'content_block_stop':
      return expectKeys(event, ['index'])
    case 'message_delta':
      expectKeys(event.delta, ['stop_reason', 'stop_sequence', 'stop_details', 'container'])
      return expectKeys(event.usage, DELTA_USAGE)
    case 'message_stop':
    case 'ping':
      return
    default:
      throw new Error(`an event type the SDK does not know: ${String(event.type)}`)
  }
}

/**
 * The events of an SSE body: each has an `event:` line naming the type its data holds, as the SDK requires; in
 * Anthropic's order (message_start first, message_stop last, blocks opened, filled and closed one at a time).
 */
export function sdkEvents(body: string): Json[] {
  const events = body
    .split('\n\n')
    .filter(Boolean)
    .map((text) => {
      const [eventLine, dataLine, ...rest] = text.split('\n')
      expect(rest).toEqual([])
      expect(eventLine).toStartWith('event: ')
      expect(dataLine).toStartWith('data: ')
      const data = JSON.parse(dataLine!.slice('data: '.length)) as Json
      expect(data.type).toBe(eventLine!.slice('event: '.length))
      expectSdkEvent(data)
      return data
    })
    .filter((event) => event.type !== 'ping')
  expect(events[0]?.type).toBe('message_start')
  expect(events.at(-1)?.type).toBe('message_stop')
  expect(events.at(-2)?.type).toBe('message_delta')
  let open: number | undefined
  let next = 0
  for (const event of events.slice(1, -2)) {
    if (event.type === 'content_block_start') {
      expect(open).toBeUndefined()
      expect(event.index).toBe(next)
      open = next++
    } else {
      expect(event.index).toBe(open)
      if (event.type === 'content_block_stop') open = undefined
    }
  }
  expect(open).toBeUndefined()
  return events
}
