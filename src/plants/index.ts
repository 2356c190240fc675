import { Elysia } from 'elysia'
import { type AuthDeps, authenticatedBody, authPlugin, BEARER_SECURITY } from '../auth'
import type { Database } from '../db/connect'
import { ErrorBody, errorStatuses, jsonErrors } from '../http/json-errors'
import { HttpError } from '../http/errors'
import { bodiless } from '../http/media-type'
import { readBodyText, requireJsonContentType } from '../http/body'
import { parseJsonLossless } from '../json/lossless'
import type { Logger } from '../telemetry/logger'
import { bodyValidator } from '../http/validation'
import { DeleteQuery, LIST_LIMIT_DEFAULT, ListQuery, NewPlant, Plant, PlantIdParams } from './model'
import { DuplicatePlantId, NotYourPlants, PlantService } from './service'
import { t } from 'elysia'
import { NEXT_PAGE_LINK } from '../http/openapi-document'

export type PlantsDeps = { db: Database; auth: AuthDeps; logger: Logger; config: { bodyLimit: number } }

const errors = (...statuses: number[]) => errorStatuses(ErrorBody, ...statuses)
const validNewPlant = bodyValidator(NewPlant)

/** The plant store: `POST /plants`, `GET /plants`, `DELETE /plants/{id}`. */
export const plantsPlugin = (deps: PlantsDeps) => {
  const service = new PlantService(deps.db)
  return new Elysia({ name: 'plants' })
    .use(authPlugin(deps.auth))
    .onError(jsonErrors(deps.logger))
    .post(
      '/plants',
      async ({ body, principal, set }) => {
        try {
          const created = await service.create(principal.owner, {
            ...body,
            id: body.id === undefined ? undefined : BigInt(body.id),
          })
          // The body is the contract's (name and tag only); the header is how a client learns a server-assigned id.
          set.headers.location = `/plants/${created.id}`
          return created.plant
        } catch (error) {
          if (error instanceof DuplicatePlantId) throw new HttpError(409, error.message)
          throw error
        }
      },
      {
        // Lossless: JSON.parse would round ids above 2^53 before validation could see them.
        ...authenticatedBody(deps.auth, 'plants:write', async (request) => {
          requireJsonContentType(request)
          return validNewPlant(parseJsonLossless(await readBodyText(request, deps.config.bodyLimit)))
        }),
        body: NewPlant,
        response: { 200: Plant, ...errors(400, 401, 403, 409, 413, 415, 429, 500, 503) },
        detail: {
          summary: 'Create a plant',
          description:
            "Creates a new plant in the store, among the caller's own plants. Ids are per owner: an id another " +
            'owner uses is free for you, and 409 means only that you already have one with it. The response body ' +
            'carries name and tag only, as the published contract has it; the `Location` header carries the ' +
            "plant's path, which is how to learn an id the server assigned.",
          security: BEARER_SECURITY,
          tags: ['plants'],
          responses: {
            200: {
              description: 'The plant was stored.',
              headers: {
                Location: {
                  description:
                    "The new plant's path, `/plants/{id}`, with the id it got (yours, or the one the server assigned).",
                  schema: { type: 'string' as const },
                },
              },
            },
            409: { description: 'You already have a plant with this id.' },
          },
        },
      },
    )
    .get(
      '/plants',
      async ({ query, principal, request, set }) => {
        const limit = query.limit === undefined ? LIST_LIMIT_DEFAULT : Number(query.limit)
        const page = await service.list(principal, limit, query.after === undefined ? undefined : BigInt(query.after))
        if (page.next)
          set.headers.link = `<${new URL(request.url).pathname}?limit=${limit}&after=${page.next}>; rel="next"`
        return page.plants
      },
      {
        auth: 'plants:read',
        query: ListQuery,
        response: { 200: t.Array(Plant), ...errors(400, 401, 403, 429, 500, 503) },
        detail: {
          summary: 'List plants',
          description:
            'Returns the plants the caller owns (an admin token sees all), oldest first. When more exist, a ' +
            '`Link: <…>; rel="next"` header points at the next page; the body shape never changes.',
          security: BEARER_SECURITY,
          tags: ['plants'],
          responses: {
            200: { description: 'One page of plants.', headers: NEXT_PAGE_LINK },
          },
        },
      },
    )
    .delete(
      '/plants/:id',
      async ({ params, principal, query, set }) => {
        try {
          if (!(await service.delete(principal, BigInt(params.id), query.owner)))
            throw new HttpError(404, `no plant with id ${params.id}`)
        } catch (error) {
          if (error instanceof NotYourPlants) throw new HttpError(403, error.message)
          throw error
        }
        return bodiless(204, set)
      },
      {
        auth: 'plants:write',
        params: PlantIdParams,
        query: DeleteQuery,
        response: { 204: t.Void(), ...errors(400, 401, 403, 404, 429, 500, 503) },
        detail: {
          summary: 'Delete a plant',
          description:
            "Deletes a single plant based on the ID supplied, among the caller's own plants: ids are per owner, " +
            "so another owner's plant with the same id is not the one named, and a missing id answers 404. An " +
            "admin token names another owner's plant with `?owner=`.",
          security: BEARER_SECURITY,
          tags: ['plants'],
          responses: {
            204: { description: 'The plant was deleted.' },
            403: {
              description: 'The token lacks plants:write, or it is not an admin token and `owner` names someone else.',
            },
            404: { description: 'The caller (or `owner`) has no plant with this id.' },
          },
        },
      },
    )
}
