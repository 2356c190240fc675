import { $ } from 'bun'
import { existsSync } from 'node:fs'

/**
 * A private PostgreSQL cluster for fault tests: made with Debian's pg_createcluster on a port of
 * its own, so a test can stop and restart it without touching the shared server, and dropped
 * afterwards. Needs root and postgresql-common; `available()` says whether this machine has them.
 */
export class PrivateCluster {
  readonly url: string
  readonly #version: string
  readonly #name: string
  readonly #port: number

  private constructor(version: string, name: string, port: number) {
    this.#version = version
    this.#name = name
    this.#port = port
    this.url = `postgres://postgres@127.0.0.1:${port}/postgres`
  }

  /** Why fault tests cannot run here, or undefined when they can. */
  static unavailable(): string | undefined {
    if (!existsSync('/usr/bin/pg_createcluster')) return 'pg_createcluster (postgresql-common) is not installed'
    if (process.getuid?.() !== 0) return 'pg_createcluster needs root'
    return undefined
  }

  static async create(port: number): Promise<PrivateCluster> {
    const version = (await $`ls /etc/postgresql`.text()).trim().split('\n')[0]!
    const name = `trellis_fault_${process.pid}_${port}`
    await $`pg_createcluster ${version} ${name} --port ${port} -- --auth=trust`.quiet()
    const cluster = new PrivateCluster(version, name, port)
    await cluster.start()
    return cluster
  }

  start() {
    return $`pg_ctlcluster --skip-systemctl-redirect ${this.#version} ${this.#name} start`.quiet()
  }

  /** `fast`: sessions are ended with 57P01, as in a restart for maintenance. */
  stop() {
    return $`pg_ctlcluster --skip-systemctl-redirect ${this.#version} ${this.#name} stop -m fast`.quiet()
  }

  restart() {
    return $`pg_ctlcluster --skip-systemctl-redirect ${this.#version} ${this.#name} restart -m fast`.quiet()
  }

  drop() {
    return $`pg_dropcluster --stop ${this.#version} ${this.#name}`.quiet().nothrow()
  }

  get port() {
    return this.#port
  }
}
