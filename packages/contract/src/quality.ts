import { z } from 'zod';
import { ZPageQuery } from './common.js';
import { ZDeviceParameterValue } from './device-template.js';
import { ZId, ZDeviceId, ZDsiId } from './identifiers.js';
import { ZQualityParameter } from './policy.js';
import { partQmsStates, ZPartHistory } from './trace.js';

/**
 * Quality (docs/quality.md, spec §3 Quality parts search and Trace parameter, §7 Quality and
 * Trace parameters): inspections of parts, the parts search with its statistics, and trace
 * parameters (types, templates, values).
 */

export const ZPartId = ZId('partNotPresent');
export const ZBuildId = ZId('buildNotPresent');
export const ZInspectionId = ZId('inspectionNotPresent');
export const ZSvpTypeId = ZId('svpTypeNotPresent');
export const ZSvpTemplateId = ZId('svpTemplateNotPresent');
export const ZSvpParameterId = ZId('svpParameterNotPresent');
export const ZSvpValueId = ZId('svpValueNotPresent');

const text = (max: number) => z.string().trim().min(1).max(max);

// ---------------------------------------------------------------- inspections

export const inspectionResults = ['passed', 'failed'] as const;
export const ZInspectionResult = z.enum(inspectionResults);
export type TInspectionResult = z.infer<typeof ZInspectionResult>;

/** Measured values of one of the order's quality parameters (spec §3 authorize request `qualityParameters`). */
export const ZInspectionValue = z
  .object({ id: z.string().min(1).max(128), values: z.array(ZDeviceParameterValue).max(100) })
  .strict();
export type TInspectionValue = z.infer<typeof ZInspectionValue>;

/**
 * `POST /ui/qms/inspection` (multipart: the field `inspection`, this object as JSON, then up to
 * 10 `picture` files): a part, or every inspectable part of a build.
 */
export const ZInspectionRequest = z
  .object({
    partId: ZPartId.optional(),
    buildId: ZBuildId.optional(),
    result: ZInspectionResult,
    /** Why a part failed (required when failed): the failures-by-reason statistic groups by it. */
    reason: text(128).optional(),
    technician: text(128),
    notes: z.string().max(4000).optional(),
    qualityParameters: z.array(ZInspectionValue).max(200).default([]),
  })
  .strict()
  .meta({ id: 'InspectionRequest' });
export type TInspectionRequest = z.infer<typeof ZInspectionRequest>;

export const ZInspectionPicture = z.object({
  index: z.number().int(),
  fileName: z.string(),
  contentType: z.string(),
  size: z.number().int(),
  sha256: z.string(),
});

export const ZInspection = z
  .object({
    inspectionId: z.string(),
    partId: z.string(),
    buildId: z.string(),
    serialNumber: z.string().nullable(),
    result: ZInspectionResult,
    reason: z.string().nullable(),
    technician: z.string(),
    notes: z.string().nullable(),
    qualityParameters: z.array(ZInspectionValue),
    pictures: z.array(ZInspectionPicture),
    /** The quality check passed / failed event the inspection wrote. */
    traceEventId: z.string(),
    partQmsState: z.enum(partQmsStates),
    inspectedBy: z.string(),
    dateCreated: z.string(),
  })
  .meta({ id: 'Inspection' });
export type TInspection = z.infer<typeof ZInspection>;

export const ZInspectionResponse = z.object({ data: z.array(ZInspection) }).meta({ id: 'InspectionResponse' });
export type TInspectionResponse = z.infer<typeof ZInspectionResponse>;

/** `GET /ui/qms/inspection`: inspections newest first, of a part, a build, or all. */
export const ZInspectionListQuery = ZPageQuery.extend({ partId: ZPartId.optional(), buildId: ZBuildId.optional() });
export const ZInspectionPictureQuery = z.object({
  inspectionId: ZInspectionId,
  index: z.coerce.number().int().min(0).max(1000),
});

/** `GET /ui/qms/inspection/parameters`: what the inspection form of a part or a build asks for. */
export const ZInspectionTargetQuery = z.object({ partId: ZPartId.optional(), buildId: ZBuildId.optional() });
export const ZInspectionTarget = z
  .object({
    buildId: z.string(),
    /** The parts an inspection of this target inspects (one for a part). */
    parts: z.array(z.object({ partId: z.string(), serialNumber: z.string().nullable(), partQmsState: z.enum(partQmsStates) })),
    /** The order's quality parameters as the part's authorization narrowed them: what is measured, with its bounds. */
    qualityParameters: z.array(ZQualityParameter),
  })
  .meta({ id: 'InspectionTarget' });
export type TInspectionTarget = z.infer<typeof ZInspectionTarget>;

// ---------------------------------------------------------------- parts search

export const qualitySortFields = ['inspectedAt', 'serialNumber', 'dateOfManufacture', 'technician'] as const;
export type TQualitySortField = (typeof qualitySortFields)[number];
/** The longest date range a search answers (406 `qualitySearchRangeTooLarge` beyond it). */
export const QUALITY_SEARCH_MAX_DAYS = 366;

const ZDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a day YYYY-MM-DD');
const ZListPage = z.object({
  pageNum: z.number().int().min(1).max(1_000_000_000).default(1),
  numberOfItems: z.number().int().min(1).max(500).default(10),
});

/** `POST /ui/qms/parts/search`: every filter optional; the day range is inclusive and compares inspection days (UTC). */
export const ZQualitySearchRequest = z
  .object({
    dsiId: ZDsiId.optional(),
    deviceId: ZDeviceId.optional(),
    /** The supplier: the company the part's order licenses (`companyName`), exact. */
    supplier: text(256).optional(),
    serialNumber: text(200).optional(),
    state: ZInspectionResult.optional(),
    technician: text(128).optional(),
    from: ZDay.optional(),
    to: ZDay.optional(),
    /** One of {@link qualitySortFields}; anything else answers 406 `qualitySearchSortUnknown`. */
    sortBy: z.string().max(64).default('inspectedAt'),
    sortOrder: z.enum(['asc', 'desc']).default('desc'),
    passed: ZListPage.default({ pageNum: 1, numberOfItems: 10 }),
    failed: ZListPage.default({ pageNum: 1, numberOfItems: 10 }),
  })
  .strict()
  .meta({ id: 'QualitySearchRequest' });
export type TQualitySearchRequest = z.infer<typeof ZQualitySearchRequest>;

/** A found part (spec §3 Quality parts search item form). */
export const ZQualityPart = z
  .object({
    partId: z.string(),
    partName: z.string(),
    serialNumber: z.string().nullable(),
    state: ZInspectionResult,
    partQmsState: z.enum(partQmsStates),
    imageUrl: z.string().nullable(),
    notes: z.string().nullable(),
    reason: z.string().nullable(),
    technician: z.string(),
    traceEventId: z.string(),
    inspectionId: z.string(),
    inspectedAt: z.string(),
    dateOfManufacture: z.string(),
    device: z.object({ deviceId: z.string(), name: z.string() }),
    package: z.object({ dsiId: z.string(), designName: z.string() }),
    supplier: z.string(),
    buildId: z.string(),
    qualityParameters: z.array(ZInspectionValue),
  })
  .meta({ id: 'QualityPart' });
export type TQualityPart = z.infer<typeof ZQualityPart>;

const ZGroupCount = z.object({ key: z.string(), label: z.string(), passed: z.number().int(), failed: z.number().int() });
export type TGroupCount = z.infer<typeof ZGroupCount>;

export const ZQualityStatistics = z.object({
  inspected: z.number().int(),
  passed: z.number().int(),
  failed: z.number().int(),
  /** passed / inspected, null when nothing was inspected. */
  passRate: z.number().nullable(),
  failuresByReason: z.array(z.object({ reason: z.string(), failed: z.number().int() })),
  byMachine: z.array(ZGroupCount),
  byDesign: z.array(ZGroupCount),
  bySupplier: z.array(ZGroupCount),
  /** Per inspection day (UTC), oldest first. */
  overTime: z.array(z.object({ day: z.string(), passed: z.number().int(), failed: z.number().int() })),
});
export type TQualityStatistics = z.infer<typeof ZQualityStatistics>;

const ZPartPage = z.object({
  data: z.array(ZQualityPart),
  pageNum: z.number().int(),
  numberOfItems: z.number().int(),
  totalNumOfPages: z.number().int(),
  totalNumOfItems: z.number().int(),
});

export const ZQualitySearchResponse = z
  .object({
    passed: ZPartPage,
    failed: ZPartPage,
    filtering: ZQualitySearchRequest.omit({ passed: true, failed: true }),
    statistics: ZQualityStatistics,
  })
  .meta({ id: 'QualitySearchResponse' });
export type TQualitySearchResponse = z.infer<typeof ZQualitySearchResponse>;

// ---------------------------------------------------------------- trace parameters (svp)

export const svpDataTypes = ['MANUAL_ENTRY', 'FILE', 'DTL'] as const;
export const ZSvpDataType = z.enum(svpDataTypes);
export type TSvpDataType = z.infer<typeof ZSvpDataType>;
export const svpAssociations = ['BUILD', 'PART', 'BUILD_PART'] as const;
export const ZSvpAssociation = z.enum(svpAssociations);
export type TSvpAssociation = z.infer<typeof ZSvpAssociation>;

export const ZSvpTypeAddRequest = z
  .object({ name: text(128), description: z.string().max(1000).default('') })
  .strict()
  .meta({ id: 'SvpTypeAddRequest' });
export const ZSvpType = z
  .object({ id: z.string(), name: z.string(), description: z.string(), dateCreated: z.string() })
  .meta({ id: 'SvpType' });
export type TSvpType = z.infer<typeof ZSvpType>;

/** One parameter of a template; `parameterId` is given when editing an existing one. */
export const ZSvpParameterInput = z
  .object({
    parameterId: ZSvpParameterId.optional(),
    name: text(128),
    dataType: ZSvpDataType,
    association: ZSvpAssociation,
    units: z.string().trim().max(64).optional(),
    /** Bounds of a numeric MANUAL_ENTRY value; with either, values must be numbers. */
    low: z.number().optional(),
    high: z.number().optional(),
    required: z.boolean().default(false),
  })
  .strict();
export type TSvpParameterInput = z.infer<typeof ZSvpParameterInput>;

export const ZSvpAddRequest = z
  .object({
    typeId: ZSvpTypeId,
    name: text(128),
    description: z.string().max(1000).default(''),
    parameters: z.array(ZSvpParameterInput).min(1).max(100),
  })
  .strict()
  .meta({ id: 'SvpAddRequest' });
export type TSvpAddRequest = z.infer<typeof ZSvpAddRequest>;
export const ZSvpEditRequest = ZSvpAddRequest.extend({ id: ZSvpTemplateId }).meta({ id: 'SvpEditRequest' });
export type TSvpEditRequest = z.infer<typeof ZSvpEditRequest>;
export const ZSvpDeleteRequest = z.object({ id: ZSvpTemplateId }).strict();

export const ZSvpParameter = z.object({
  parameterId: z.string(),
  name: z.string(),
  dataType: ZSvpDataType,
  association: ZSvpAssociation,
  units: z.string().nullable(),
  low: z.number().nullable(),
  high: z.number().nullable(),
  required: z.boolean(),
});
export type TSvpParameter = z.infer<typeof ZSvpParameter>;
export const ZSvpTemplate = z
  .object({
    id: z.string(),
    typeId: z.string(),
    typeName: z.string(),
    name: z.string(),
    description: z.string(),
    parameters: z.array(ZSvpParameter),
    dateCreated: z.string(),
  })
  .meta({ id: 'SvpTemplate' });
export type TSvpTemplate = z.infer<typeof ZSvpTemplate>;
export const ZSvpListQuery = ZPageQuery.extend({ typeId: ZSvpTypeId.optional() });

/** `svp-value/manual/add` (MANUAL_ENTRY: `value`; DTL: `dtlId`). */
export const ZSvpManualAddRequest = z
  .object({
    parameterId: ZSvpParameterId,
    partId: ZPartId.optional(),
    buildId: ZBuildId.optional(),
    value: z.string().max(4000).optional(),
    dtlId: ZId('dtlNotPresent').optional(),
  })
  .strict()
  .meta({ id: 'SvpManualAddRequest' });
export type TSvpManualAddRequest = z.infer<typeof ZSvpManualAddRequest>;
export const ZSvpManualEditRequest = z
  .object({
    id: ZSvpValueId,
    value: z.string().max(4000).optional(),
    dtlId: ZId('dtlNotPresent').optional(),
  })
  .strict()
  .meta({ id: 'SvpManualEditRequest' });
export type TSvpManualEditRequest = z.infer<typeof ZSvpManualEditRequest>;
export const ZSvpValueDeleteRequest = z.object({ id: ZSvpValueId }).strict();
export const ZSvpValueFileQuery = z.object({ id: ZSvpValueId });

export const ZSvpValue = z
  .object({
    id: z.string(),
    parameterId: z.string(),
    parameterName: z.string(),
    templateId: z.string(),
    templateName: z.string(),
    dataType: ZSvpDataType,
    association: ZSvpAssociation,
    units: z.string().nullable(),
    partId: z.string().nullable(),
    buildId: z.string().nullable(),
    value: z.string().nullable(),
    dtlId: z.string().nullable(),
    file: z.object({ fileName: z.string(), contentType: z.string(), size: z.number().int(), sha256: z.string() }).nullable(),
    createdBy: z.string(),
    dateCreated: z.string(),
    dateUpdated: z.string(),
  })
  .meta({ id: 'SvpValue' });
export type TSvpValue = z.infer<typeof ZSvpValue>;
export const ZSvpValueListQuery = ZPageQuery.extend({
  partId: ZPartId.optional(),
  buildId: ZBuildId.optional(),
  parameterId: ZSvpParameterId.optional(),
});

/** At most this many trace-parameter values come with a part's history (newest first). */
export const PART_HISTORY_MAX_VALUES = 200;

/**
 * `GET /ui/part/history` (docs/traceability.md) with the trace-parameter values recorded about the
 * part (docs/quality.md): its own and those of its build that name no part, newest first.
 */
export const ZPartHistoryWithValues = ZPartHistory.extend({
  traceValues: z.array(ZSvpValue),
  /** More values than `PART_HISTORY_MAX_VALUES` exist; the oldest are left out. */
  traceValuesTruncated: z.boolean(),
}).meta({ id: 'PartHistoryWithValues' });
export type TPartHistoryWithValues = z.infer<typeof ZPartHistoryWithValues>;
