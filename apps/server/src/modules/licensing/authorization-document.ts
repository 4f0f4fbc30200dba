import { DOMImplementation, XMLSerializer, type Document, type Element } from '@xmldom/xmldom';
import type { TDeviceParameter, TDeviceParameterValue, TQualityParameter } from '@manifold/contract';
import type { RevisionFileRow } from '../../db/schema-packages.js';
import type { AuthorizationRecord } from './authorizations.repository.js';
import type { OrderRecord } from './orders.repository.js';
import type { LicensedDevice } from './recipients.repository.js';
import { formatSerial } from './serial-numbers.js';

/** Namespace of the authorization document a machine (or downstream Manage) receives. */
export const AUTHORIZATION_NS = 'urn:manifold:authorization:1';

export interface DocumentFile {
  file: RevisionFileRow;
  /** The file's content key wrapped for the recipient (compact JWE); null for public files. */
  wrappedKey: string | null;
}

export interface AuthorizationDocumentInput {
  authorization: AuthorizationRecord;
  order: OrderRecord;
  device: LicensedDevice | undefined;
  manageId: string | null;
  issuer: { manageUrl: string; keySerialNumber: string };
  recipientThumbprint: string;
  files: DocumentFile[];
  /** The parameters in force: the authorization's narrowing over the order's and the machine's bounds. */
  deviceParameters: TDeviceParameter[];
  qualityParameters: TQualityParameter[];
}

/**
 * The parameters in force for a target: each parameterId takes the narrowest definition known —
 * the authorization's, else the order's, else the machine's.
 */
export function effectiveParameters<T>(layers: T[][], idOf: (parameter: T) => string): T[] {
  const byId = new Map<string, T>();
  for (const layer of [...layers].reverse()) for (const parameter of layer) byId.set(idOf(parameter), parameter);
  return [...byId.values()].sort((a, b) => idOf(a).localeCompare(idOf(b)));
}

/**
 * Builds the unsigned authorization as XML with a DOM (every value escaped by the serializer);
 * the caller signs it with an enveloped XML-DSig. Layout:
 *
 *     <Authorization xmlns="urn:manifold:authorization:1" version="1">
 *       <AuthorizationId/> <OrderId/> <OrderNumber/> <Version/> <DateCreated/>
 *       <Issuer manageUrl keySerialNumber/> <Licensor keySerialNumber companyName/>
 *       <Target type="device|manage" id><DeviceIdentity …/><RecipientCertificate thumbprint/></Target>
 *       <Quantity/> <Expiration/>? <Purpose/>? <Breakage policy value?/>
 *       <SerialNumbers type prefix first last count/>?
 *       <Design dsiId dsiVersion revisionId designName>
 *         <DigestMethod>SHA-256</DigestMethod><DigestValue>hex</DigestValue>
 *         <File fileId name contentType size sha256 public><WrappedKey>JWE</WrappedKey>?</File>*
 *       </Design>
 *       <DeviceParameters><Parameter …><Value/>*<Choice/>*</Parameter>*</DeviceParameters>
 *       <QualityParameters>…</QualityParameters>
 *       <Tracking><Field name>value</Field>*</Tracking>
 *       <AuthorizedUsers><User/>*</AuthorizedUsers>
 *     </Authorization>
 */
export function authorizationDocument(input: AuthorizationDocumentInput): string {
  const { authorization, order, device } = input;
  const document: Document = new DOMImplementation().createDocument(AUTHORIZATION_NS, 'Authorization', null);
  const root = document.documentElement!;
  root.setAttribute('version', '1');

  const element = (
    name: string,
    attributes: Record<string, string | number | boolean | null | undefined> = {},
    text?: string,
  ) => {
    const node = document.createElementNS(AUTHORIZATION_NS, name);
    for (const [key, value] of Object.entries(attributes)) {
      if (value !== undefined && value !== null) node.setAttribute(key, String(value));
    }
    if (text !== undefined) node.appendChild(document.createTextNode(text));
    return node;
  };
  const append = (parent: Element, ...children: Element[]) => {
    for (const child of children) parent.appendChild(child);
    return parent;
  };

  append(
    root,
    element('AuthorizationId', {}, authorization.id),
    element('OrderId', {}, order.id),
    element('OrderNumber', {}, order.order_number),
    element('Version', {}, String(authorization.version)),
    element('DateCreated', {}, authorization.created_at),
    element('Issuer', { manageUrl: input.issuer.manageUrl, keySerialNumber: input.issuer.keySerialNumber }),
    element('Licensor', { companyName: order.company_name, keySerialNumber: order.key_role_sn }),
  );

  const target = element('Target', { type: authorization.target_kind, id: authorization.device_id ?? input.manageId });
  if (device) {
    target.appendChild(
      element('DeviceIdentity', {
        id: device.identity_id,
        name: device.name,
        serialNumber: device.serial_number,
        model: device.model,
        family: device.family,
        manufacturer: device.manufacturer,
        deviceClass: device.device_class,
        technology: device.technology,
        parameterVersion: device.parameter_version,
      }),
    );
  }
  target.appendChild(element('RecipientCertificate', { thumbprint: input.recipientThumbprint }));
  append(root, target, element('Quantity', {}, String(authorization.quantity)));
  if (authorization.expires_at) root.appendChild(element('Expiration', {}, authorization.expires_at));
  if (order.purpose) root.appendChild(element('Purpose', {}, order.purpose));
  root.appendChild(element('Breakage', { policy: order.breakage_policy, value: order.breakage_value }));

  if (authorization.serial_first !== null && authorization.serial_last !== null) {
    const first = Number(authorization.serial_first);
    const last = Number(authorization.serial_last);
    root.appendChild(
      element('SerialNumbers', {
        type: order.serial_type,
        prefix: order.serial_prefix ?? '',
        first: formatSerial(first, order.serial_type, order.serial_prefix),
        last: formatSerial(last, order.serial_type, order.serial_prefix),
        count: last - first + 1,
      }),
    );
  }

  const design = element('Design', {
    dsiId: order.dsi_id,
    dsiVersion: order.dsi_version,
    revisionId: order.revision_id,
    designName: order.design_name,
  });
  append(design, element('DigestMethod', {}, 'SHA-256'), element('DigestValue', {}, order.digest_value));
  for (const { file, wrappedKey } of input.files) {
    const node = element('File', {
      fileId: file.file_id,
      name: file.file_name,
      contentType: file.content_type,
      size: Number(file.size),
      sha256: file.sha256,
      public: file.is_public === 1,
    });
    if (wrappedKey) node.appendChild(element('WrappedKey', {}, wrappedKey));
    design.appendChild(node);
  }
  root.appendChild(design);

  const parameterElement = (
    id: string,
    parameter: Omit<TDeviceParameter, 'parameterId'> | Omit<TQualityParameter, 'id'>,
    idName: string,
  ) => {
    const node = element('Parameter', {
      [idName]: id,
      type: parameter.type,
      adjust: parameter.adjust,
      required: parameter.required,
      encrypt: parameter.encrypt,
      exclusive: 'exclusive' in parameter ? parameter.exclusive : undefined,
      low: parameter.low,
      high: parameter.high,
      units: parameter.units,
    });
    const values: TDeviceParameterValue[] = parameter.valueList ?? [];
    for (const value of values) node.appendChild(element('Value', { type: typeof value }, String(value)));
    if (parameter.resetValue !== undefined)
      node.appendChild(element('ResetValue', { type: typeof parameter.resetValue }, String(parameter.resetValue)));
    for (const choice of parameter.choiceList ?? []) node.appendChild(element('Choice', {}, choice));
    return node;
  };
  const deviceParameters = element('DeviceParameters');
  for (const { parameterId, ...parameter } of input.deviceParameters)
    deviceParameters.appendChild(parameterElement(parameterId, parameter, 'parameterId'));
  const qualityParameters = element('QualityParameters');
  for (const { id, ...parameter } of input.qualityParameters)
    qualityParameters.appendChild(parameterElement(id, parameter, 'id'));
  const tracking = element('Tracking');
  for (const field of authorization.tracking) {
    tracking.appendChild(element('Field', { name: field.fieldName }, field.fieldValue));
  }
  const users = element('AuthorizedUsers');
  for (const user of authorization.authorized_users) users.appendChild(element('User', {}, user));
  append(root, deviceParameters, qualityParameters, tracking, users);

  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(document)}`;
}
