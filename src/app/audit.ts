/** The content-free audit log every surface writes and `recall status` and the dashboard read. */
export { appendAudit, auditCall, auditLogProblem, readAudit, readAuditFailures } from "../audit/audit-log.js";
