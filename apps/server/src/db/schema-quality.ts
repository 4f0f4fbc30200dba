import type { ColumnType, Selectable } from 'kysely';

type BigNumber = ColumnType<number | string | null, number | null, number | null>;

/** Tables of quality (migration 019, docs/quality.md). */
export interface QualityInspectionsTable {
  id: string;
  part_id: string;
  build_id: string;
  result: 'passed' | 'failed';
  reason: string | null;
  technician: string;
  notes: string | null;
  /** JSON `[{id, values}]`. */
  quality_values: string;
  /** JSON `[{key, fileName, contentType, size, sha256}]`. */
  pictures: string;
  event_id: string;
  /** The part's QMS state the inspection left. */
  qms_state: 'NO_QMS_STEP' | 'MANUFACTURED' | 'CANCELED' | 'FAILURE';
  created_by: string;
  created_at: string;
}

/** One picture of an inspection (migration 037): its stored object, for the storage sweeper. */
export interface QualityInspectionPicturesTable {
  inspection_id: string;
  /** Its index in the inspection's `pictures`. */
  position: number;
  storage_key: string;
}

export interface SvpTypesTable {
  id: string;
  name: string;
  name_key: string;
  description: string;
  created_at: string;
}

export interface SvpTemplatesTable {
  id: string;
  type_id: string;
  name: string;
  name_key: string;
  description: string;
  created_at: string;
  updated_at: string;
}

export interface SvpParametersTable {
  id: string;
  template_id: string;
  position: number;
  name: string;
  data_type: 'MANUAL_ENTRY' | 'FILE' | 'DTL';
  association: 'BUILD' | 'PART' | 'BUILD_PART';
  units: string | null;
  low: number | null;
  high: number | null;
  required: number;
}

export interface SvpValuesTable {
  id: string;
  parameter_id: string;
  part_id: string | null;
  build_id: string | null;
  value: string | null;
  dtl_id: string | null;
  file_name: string | null;
  content_type: string | null;
  size: BigNumber;
  sha256: string | null;
  storage_key: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface QualityTables {
  quality_inspections: QualityInspectionsTable;
  quality_inspection_pictures: QualityInspectionPicturesTable;
  svp_types: SvpTypesTable;
  svp_templates: SvpTemplatesTable;
  svp_parameters: SvpParametersTable;
  svp_values: SvpValuesTable;
}

export type InspectionRow = Selectable<QualityInspectionsTable>;
export type SvpParameterRow = Selectable<SvpParametersTable>;
export type SvpValueRow = Selectable<SvpValuesTable>;
