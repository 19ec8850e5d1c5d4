import { owns } from '../auth.ts'
import { PROJECT_OWNERS } from '../data/networks.ts'
import type { Principal } from '../env.ts'

/**
 * Whether the seeded resources of project `projectId` are the caller's to see: a client's own
 * projects and the projects no one has (each the caller's own, empty, as it always was), the
 * reseller's every one of its clients'. Another client's project reads exactly like a project
 * no one has (its own networks absent, a cluster created there the caller's): a 403 or a 404
 * only for those would tell a client which project ids another client holds.
 *
 * @example
 * ```ts
 * const seen = projectVisible(c.get('principal'), project_id) ? all : withoutProject(all)
 * ```
 */
export function projectVisible(principal: Principal, projectId: number): boolean {
  const owner = PROJECT_OWNERS.get(projectId)
  return owner === undefined || owns(principal, owner)
}
