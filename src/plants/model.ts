import { t, type Static } from 'elysia'
import { CursorString, Int64, Int64String, IntegerString, StoredText } from '../http/int64'

const NAME_MAX = 200
const TAG_MAX = 100
export const LIST_LIMIT_DEFAULT = 100
const LIST_LIMIT_MAX = 1000

/** A plant as the published contract returns it: never with its id. */
export const Plant = t.Object({
  name: t.String({ description: 'The name of the plant' }),
  tag: t.Optional(t.String({ description: 'Tag to specify the type' })),
})
export type Plant = Static<typeof Plant>

export const NewPlant = t.Object(
  {
    name: StoredText({
      trimmed: true,
      minLength: 1,
      maxLength: NAME_MAX,
      description: `The name of the plant; 1 to ${NAME_MAX} characters after trimming (stored trimmed)`,
      error: `name must be a string of 1 to ${NAME_MAX} characters after trimming`,
    }),
    tag: t.Optional(
      StoredText({
        maxLength: TAG_MAX,
        description: `Tag to specify the type; at most ${TAG_MAX} characters`,
        error: `tag must be a string of at most ${TAG_MAX} characters`,
      }),
    ),
    id: t.Optional(
      Int64('id', { description: 'Identification number of the plant (int64). Assigned by the service when omitted.' }),
    ),
  },
  { additionalProperties: false },
)
export type NewPlant = Static<typeof NewPlant>

export const ListQuery = t.Object({
  limit: t.Optional(
    IntegerString({
      format: 'int32',
      minimum: 1,
      maximum: LIST_LIMIT_MAX,
      default: LIST_LIMIT_DEFAULT,
      description: `The maximum number of results to return (1 to ${LIST_LIMIT_MAX}, default ${LIST_LIMIT_DEFAULT})`,
      error: `limit must be an integer from 1 to ${LIST_LIMIT_MAX}`,
    }),
  ),
  after: t.Optional(
    CursorString({
      description: 'Opaque cursor from the `Link: rel="next"` header of the previous page',
      error: 'after must be a cursor taken from a Link header',
    }),
  ),
})

export const PlantIdParams = t.Object({ id: Int64String('id', { description: 'ID of plant to delete' }) })

export const DeleteQuery = t.Object({
  owner: t.Optional(
    StoredText({
      minLength: 1,
      maxLength: 200,
      description: "Admin tokens only: whose plant to delete (default: the caller's own)",
      error: 'owner must be an owner name of 1 to 200 characters',
    }),
  ),
})
