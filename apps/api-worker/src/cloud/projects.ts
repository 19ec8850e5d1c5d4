import { owns } from '../auth.ts'
import { PROJECT_OWNERS } from '../data/networks.ts'
import type { Principal } from '../env.ts'
import { ApiError } from '../errors.ts'
import { CloudErrors } from '../schemas.ts'

/** The 404 of {@link requireProject}, for a route's responses. */
export const ProjectNotFound = {
  404: { description: "Another client's project", content: CloudErrors[400].content },
}

/**
 * Refuses a project of another client account with the 404 of a project that does not exist: a
 * client neither lists the networks of, nor creates clusters in, another client's project, and a
 * 403 would confirm the project is there. The reseller reaches every one of its clients' projects.
 *
 * @example
 * ```ts
 * requireProject(c.get('principal'), project_id) // throws 404 for another client's project
 * ```
 */
export function requireProject(principal: Principal, projectId: number): void {
  const owner = PROJECT_OWNERS.get(projectId)
  if (owner !== undefined && !owns(principal, owner))
    throw new ApiError(404, `Project ${projectId} not found.`)
}
