import { join } from 'node:path'
import { PROVIDER_KINDS } from '../src/chat/providers'
import { scenarioSchemaText } from '../src/chat/providers/script/json-schema'
import { configSchemaText } from '../src/config/json-schema'

/**
 * Writes schemas/trellis.schema.json, the JSON Schema of trellis.yaml that `GET /config/schema` serves, for editors
 * that read it from the repository (`# yaml-language-server: $schema=…`). tests/config/schema.test.ts fails when it
 * is stale: run `bun scripts/config-schema.ts` after changing a setting. It writes schemas/scenario.schema.json too, the
 * JSON Schema of a script provider's scenario (`GET /config/scenario-schema`; tests/chat/providers/script/).
 */
const path = join(import.meta.dir, '../schemas/trellis.schema.json')
await Bun.write(path, configSchemaText(PROVIDER_KINDS))
console.log(`wrote ${path}`)
const scenarioPath = join(import.meta.dir, '../schemas/scenario.schema.json')
await Bun.write(scenarioPath, scenarioSchemaText())
console.log(`wrote ${scenarioPath}`)
