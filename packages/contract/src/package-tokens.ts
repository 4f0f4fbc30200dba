/**
 * Error tokens, audit kinds and permission rows of design packages and machines (spec §3, §4,
 * §6, §7). Merged into `manifoldErrorTokens`, `auditEventTypes` and `permissions`.
 */
export const packageErrorTokens = {
  // design packages
  packageNotPresent: 'The design package does not exist',
  packageDesignNameEmpty: 'Design name is required',
  packageVersionRequired: 'Send the version of the package you edited',
  packageVersionConflict: 'The package was changed by someone else since you read it; reload it and apply your changes again',
  packageReferencedByOrders: 'The package cannot be deleted while orders refer to it',
  packageHasNoFiles: 'A package needs at least one file to be built',
  packageDisplayImageInvalid: 'The display image must be a PNG, JPEG or WebP data URL or the current image of this package',
  workflowStepNotPresent: 'The workflow step does not exist in this package',
  workflowStepInstructionsEmpty: 'A manual step needs instructions',
  workflowStepDeviceTemplateRequired: 'A device step needs a device template',
  workflowStepIdsMismatch: 'The list must name every step of the package exactly once',
  packageFileNotPresent: 'The file does not exist',
  packageFileFieldsFirst: 'Send dsiId and isPublic before the file in the upload',
  packageFileCorrupted: 'The stored file does not match its recorded digest',
  // device templates and parameters
  deviceTemplateNotPresent: 'The device template does not exist',
  deviceTemplateNotFormattedCorrectly: 'The device template is not valid JSON of the template format',
  deviceTemplateInUse: 'The device template is used by a workflow step',
  parameterIdDuplicate: 'Another parameter has this parameterId',
  parameterRangeInvalid: 'low must not be greater than high',
  parameterRangeNotAllowed: 'low and high apply to integer and decimal parameters only',
  parameterChoiceListMissing: 'A choice parameter needs choicePresent and a non-empty choiceList',
  parameterChoiceListMismatch: 'choicePresent, choiceList and choiceListEntryList do not agree',
  parameterAdjustInvalid: 'LOCK needs exactly one value; INCREASE and DECREASE need a numeric type and a starting value',
  parameterTextSizeMismatch: 'size does not match the decoded length of data',
  // machines and images
  deviceHasLiveAuthorizations: 'The machine holds live authorizations; delete with forceDelete to remove it anyway',
  certificateWrongPurpose: 'The certificate is not fit for its purpose (key usage)',
  registrationSignatureInvalid: 'The registration is not signed with the key of its signing certificate',
  imageTypeNotSupported: 'Images must be PNG, JPEG or WebP',
} as const;

export const packageAuditEventTypes = [
  // design packages (spec §4: design package …, public file accessed, private file decrypted)
  'designPackageCreated',
  'designPackageEdited',
  'designPackageDeleted',
  'designPackageBuilt',
  'designPackageFileAdded',
  'designPackageFileDeleted',
  'designPackageFilePrivacyChanged',
  'designPackageWorkflowChanged',
  'deviceTemplateImported',
  'deviceTemplateDeleted',
  'publicFileAccessed',
  'privateFileDecrypted',
  // machines (spec §4: machine registered, deregistered)
  'machineRegistered',
  'machineApproved',
  'machineRejected',
  'machineDisabled',
  'machineEnabled',
  'machineDeregistered',
  'machineImageChanged',
] as const;

/**
 * Design packages: everyone reads them (orders name them); changing, building and deleting them
 * is design-storage administration (§1 "administrators … manage … design storage", §6 DAS calls
 * ADMIN only). Downloading a private file is ADMIN only, checked in the service (a public one:
 * any role). Machines: §6 — device list both roles; approve, delete, disable ADMIN.
 */
export const packagePermissions = {
  'GET /ui/package/list': 'anyRole',
  'GET /ui/package/fetch': 'anyRole',
  'POST /ui/package/info': 'admin',
  'POST /ui/package/delete': 'admin',
  'POST /ui/package/build': 'admin',
  'GET /ui/package/image/:image': 'anyRole',
  'POST /ui/package/workflow/add': 'admin',
  'POST /ui/package/workflow/edit': 'admin',
  'POST /ui/package/workflow/delete': 'admin',
  'POST /ui/package/workflow/reorder': 'admin',
  'POST /ui/package/files/upload': 'admin',
  'POST /ui/package/files/privacy': 'admin',
  'POST /ui/package/files/delete': 'admin',
  'GET /ui/package/files/download': 'anyRole',
  'GET /ui/package/device-template/schema': 'anyRole',
  'GET /ui/package/device-template/list': 'anyRole',
  'GET /ui/package/device-template/fetch': 'anyRole',
  'POST /ui/package/device-template/import': 'admin',
  'POST /ui/package/device-template/delete': 'admin',
  'GET /ui/das/list': 'admin',
  'GET /ui/das/fetch': 'admin',
  'POST /apl/registration/add': 'partner',
  'GET /ui/device/list': 'anyRole',
  'GET /ui/device/fetch': 'anyRole',
  'POST /ui/device/approve': 'admin',
  'POST /ui/device/disable': 'admin',
  'POST /ui/device/delete': 'admin',
  'POST /ui/device/image': 'admin',
  'GET /ui/device/image/:image': 'anyRole',
} as const;
