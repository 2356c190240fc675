import { t } from 'elysia'
import { IntegerString } from '../http/int64'
import { Integer } from '../http/integer'
import { ASSET_PATH_MAX_LENGTH } from '../docs-format/asset-files'

export const ASSETS_LIST_DEFAULT = 1000
export const ASSETS_LIST_MAX = 1000

const fileFields = {
  path: t.String({
    description: 'the file path in the repository (images/hero.png); the site serves it at /docs/{path}',
  }),
  contentType: t.String({ description: 'what the file is served as, from its extension' }),
  kind: t.Union([t.Literal('file'), t.Literal('openapi')], {
    description: '`openapi` for an OpenAPI document (checked when stored; its operations render as API pages)',
  }),
  sha256: t.String({ description: 'hex SHA-256 of the bytes: `docs push` compares it to skip unchanged files' }),
  etag: t.String({ description: 'its entity tag, for If-None-Match, If-Match' }),
  size: Integer({ format: 'int32', minimum: 0, description: 'size in bytes' }),
  updatedAt: t.String({ format: 'date-time', description: 'when it was last stored' }),
}

/** One file in the public list. */
const AssetListItem = t.Object(fileFields, { title: 'DocsFileSummary' })

export const AssetList = t.Object({
  files: t.Array(AssetListItem, { description: 'the stored files, sorted by path (byte order)' }),
})

/** The answer to a PUT. */
export const StoredAssetResult = t.Object(
  {
    ...fileFields,
    unchanged: t.Boolean({ description: 'true when the bytes were those already stored, so nothing was written' }),
  },
  { title: 'DocsFileStored' },
)

export const AssetListQuery = t.Object({
  limit: t.Optional(
    IntegerString({
      format: 'int32',
      minimum: 1,
      maximum: ASSETS_LIST_MAX,
      default: ASSETS_LIST_DEFAULT,
      description: `The most files to return (1 to ${ASSETS_LIST_MAX}, default ${ASSETS_LIST_DEFAULT})`,
      error: `limit must be an integer from 1 to ${ASSETS_LIST_MAX}`,
    }),
  ),
  after: t.Optional(
    t.String({
      maxLength: ASSET_PATH_MAX_LENGTH,
      // No NUL or other control character: a cursor is a stored path, and PostgreSQL text cannot hold NUL.
      pattern: '^[^\\u0000-\\u001f]*$',
      description:
        'Files whose path sorts after this one; the `Link: rel="next"` header of the previous page carries it',
      error: `after must be a file path of at most ${ASSET_PATH_MAX_LENGTH} characters`,
    }),
  ),
})
