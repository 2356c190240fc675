import { setDefaultTimeout } from 'bun:test'

// Preloaded by bunfig.toml for every test file.
// Tests speak to servers on loopback only; keep proxies configured on the machine out of the way.
process.env.NO_PROXY = '127.0.0.1,localhost'
// Tests start servers and child processes on a busy two-core machine: bun's 5 s default is too tight. Bun applies
// setDefaultTimeout to the file that calls it, so this covers only the first file run: every test file says it again
// (tests/test-timeouts.test.ts checks that), and this line keeps it for a file run alone that forgot.
setDefaultTimeout(30_000)
