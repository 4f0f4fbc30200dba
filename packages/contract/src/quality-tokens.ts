/** Quality (docs/quality.md): error tokens, audit kinds and permissions of the quality and trace-parameter calls. */
export const qualityErrorTokens = {
  partNotPresent: 'The part does not exist',
  buildNotPresent: 'The build does not exist',
  partNotInspectable: 'The part cannot be inspected (its job failed or was cancelled)',
  inspectionNotPresent: 'The inspection does not exist',
  inspectionTargetInvalid: 'Name either a part (partId) or a build (buildId), not both',
  inspectionReasonRequired: 'A failed inspection names its reason',
  inspectionFieldsFirst: 'Send the inspection field before the pictures',
  qualitySearchSortUnknown: 'The search cannot be sorted by this field',
  qualitySearchRangeTooLarge: 'The search covers more days than it can answer',
  svpTypeNotPresent: 'The trace parameter type does not exist',
  svpTypeNameTaken: 'A trace parameter type with this name already exists',
  svpTemplateNotPresent: 'The trace parameter template does not exist',
  svpTemplateNameTaken: 'A trace parameter template with this name already exists',
  svpTemplateInUse: 'Values were recorded for this template\u2019s parameters',
  svpParameterNotPresent: 'The trace parameter does not exist',
  svpParameterInUse: 'Values were recorded for this parameter; it cannot be removed or change its data type',
  svpValueNotPresent: 'The trace parameter value does not exist',
  svpAssociationMismatch: 'The value does not attach to what its parameter\u2019s association names',
  svpDataTypeMismatch: 'The call does not match the parameter\u2019s data type',
  dtlNotPresent: 'The machine data record does not exist',
} as const;

export const qualityAuditEventTypes = [
  'traceParameterTypeAdded',
  'traceParameterTemplateChanged',
  'traceParameterValueChanged',
] as const;

/** Both roles record inspections, search and record values; types and templates are ADMIN's. */
export const qualityPermissions = {
  'GET /ui/qms/inspection': 'anyRole',
  'POST /ui/qms/inspection': 'anyRole',
  'GET /ui/qms/inspection/picture': 'anyRole',
  'GET /ui/qms/inspection/parameters': 'anyRole',
  'POST /ui/qms/parts/search': 'anyRole',
  'POST /ui/svp-type/add': 'admin',
  'GET /ui/svp-type/list': 'anyRole',
  'POST /ui/svp/add': 'admin',
  'POST /ui/svp/edit': 'admin',
  'POST /ui/svp/delete': 'admin',
  'GET /ui/svp/list': 'anyRole',
  'POST /ui/svp-value/manual/add': 'anyRole',
  'POST /ui/svp-value/manual/edit': 'anyRole',
  'POST /ui/svp-value/file/add': 'anyRole',
  'POST /ui/svp-value/file/edit': 'anyRole',
  'GET /ui/svp-value/file': 'anyRole',
  'POST /ui/svp-value/delete': 'anyRole',
  'GET /ui/svp-value/list': 'anyRole',
} as const;
