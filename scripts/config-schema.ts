import { join } from 'node:path'
import { PROVIDER_KINDS } from '../src/chat/providers'
import { configSchemaText } from '../src/config/json-schema'

/**
 * Writes schemas/trellis.schema.json, the JSON Schema of trellis.yaml that `GET /config/schema` serves, for editors
 * that read it from the repository (`# yaml-language-server: $schema=…`). tests/config/schema.test.ts fails when it
 * is stale: run `bun scripts/config-schema.ts` after changing a setting.
 */
const path = join(import.meta.dir, '../schemas/trellis.schema.json')
await Bun.write(path, configSchemaText(PROVIDER_KINDS))
console.log(`wrote ${path}`)
