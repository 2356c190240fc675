import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createOpenAI } from '@ai-sdk/openai'
import { Agent, run, setDefaultOpenAIClient, setTracingDisabled, tool as agentTool } from '@openai/agents'
import { generateText, stepCountIs, streamText, tool } from 'ai'
import OpenAI from 'openai'
import { z } from 'zod'
import { makeTestApp } from '../helpers/app'

setDefaultTimeout(60_000)

/*
 * Issue #26 §5: the AI SDK's default OpenAI provider (`createOpenAI({ baseURL })('model')`, which
 * speaks the Responses API) and the OpenAI Agents SDK (Responses by default), as an application
 * would use them, against a listening Trellis on the offline echo model. Echo answers with the last
 * user message, and calls a tool only when `tool_choice` forces one, so each step is predictable.
 */

let trellis: Awaited<ReturnType<typeof makeTestApp>>
let server: ReturnType<typeof Bun.serve>
let token: string
let baseURL: string

beforeAll(async () => {
  trellis = await makeTestApp({ deps: { onLongLivedRequest: (request) => server.timeout(request, 0) } })
  token = await trellis.tokenFor('apps', ['chat'])
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: trellis.app.fetch })
  baseURL = `http://127.0.0.1:${server.port}/v1`
})

afterAll(async () => {
  await server.stop(true)
  await trellis.close()
})

describe('the AI SDK, createOpenAI({ baseURL }) default provider (Responses API)', () => {
  const model = () => createOpenAI({ baseURL, apiKey: token })('echo')

  test('generateText: the answer, usage and the finish reason', async () => {
    const result = await generateText({ model: model(), system: 'Be terse.', prompt: 'Water the fern' })
    expect(result.text).toBe('Water the fern')
    expect(result.finishReason).toBe('stop')
    expect(result.usage.outputTokens).toBeGreaterThan(0)
    expect(result.usage.inputTokens).toBeGreaterThan(0)
  })

  test('streamText: the text arrives in deltas, then the usage', async () => {
    const result = streamText({ model: model(), prompt: 'Water the fern slowly' })
    const deltas: string[] = []
    for await (const delta of result.textStream) deltas.push(delta)
    expect(deltas.length).toBeGreaterThan(1)
    expect(deltas.join('')).toBe('Water the fern slowly')
    expect((await result.usage).outputTokens).toBe(deltas.length)
    expect(await result.finishReason).toBe('stop')
  })

  test('a two-step tool loop: the model calls the tool, its result goes back, the model answers', async () => {
    const calls: unknown[] = []
    const result = await generateText({
      model: model(),
      prompt: 'How wet is the soil of the fern?',
      tools: {
        soil_moisture: tool({
          description: 'Soil moisture of a plant, in percent',
          inputSchema: z.object({ plant: z.string() }),
          execute: async (input) => {
            calls.push(input)
            return { percent: 42 }
          },
        }),
      },
      // echo calls a tool only when forced: forced on the first step, free on the second.
      prepareStep: ({ stepNumber }) => (stepNumber === 0 ? { toolChoice: 'required' } : { toolChoice: 'auto' }),
      stopWhen: stepCountIs(3),
    })
    expect(calls).toHaveLength(1)
    expect(result.steps).toHaveLength(2)
    expect(result.steps[0]!.toolCalls[0]!.toolName).toBe('soil_moisture')
    expect(result.text).toBe('How wet is the soil of the fern?')
  })
})

describe('the OpenAI Agents SDK (Responses API)', () => {
  test('run() with a function tool: the tool runs, the agent answers', async () => {
    setDefaultOpenAIClient(new OpenAI({ baseURL, apiKey: token }))
    setTracingDisabled(true)
    const readings: string[] = []
    const moisture = agentTool({
      name: 'soil_moisture',
      description: 'Soil moisture of a plant, in percent',
      parameters: z.object({ plant: z.string() }),
      execute: async ({ plant }) => {
        readings.push(plant)
        return `${plant}: 42%`
      },
    })
    // The SDK resets tool_choice after a tool ran, so echo calls the tool once, then answers.
    const agent = new Agent({
      name: 'Gardener',
      instructions: 'Answer about plants.',
      model: 'echo',
      tools: [moisture],
      modelSettings: { toolChoice: 'required' },
    })
    const result = await run(agent, 'How wet is the fern?')
    expect(readings).toHaveLength(1)
    expect(result.finalOutput).toBe('How wet is the fern?')
  })
})
