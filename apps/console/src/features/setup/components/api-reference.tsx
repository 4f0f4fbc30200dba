import { Accordion, Badge, Box, Button, Group, Select, Stack, Table, Text, Title, UnstyledButton } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { type ReactNode, useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { stateText } from '../../../app/theme';
import { SearchField } from '../../../components/search-field';
import { saveText } from '../../../lib/download';
import {
  anchoredKey,
  type ApiContent,
  type ApiOperation,
  groupByTag,
  type JsonSchema,
  type OpenApiDocument,
  operationAnchor,
  operationMatches,
  operationsOf,
  type SchemaConstraint,
  type SchemaSummary,
  summarizeSchema,
  typeLabel,
} from '../../../lib/openapi-document';

const methodColors: Readonly<Record<string, string>> = {
  get: 'blue',
  post: 'green',
  put: 'orange',
  patch: 'teal',
  delete: 'red',
};

const statusColor = (status: string) =>
  status.startsWith('2') ? 'green' : status.startsWith('5') ? 'gray' : status.startsWith('4') ? 'orange' : 'blue';

/**
 * `text` as a part of an element id (an accordion item's value, of which Mantine makes its ids):
 * letters and digits kept, every other character as `_` and its code, so that no two texts give
 * the same id and none has a space (`aria-labelledby` and `aria-controls` read spaces as lists).
 */
const idPart = (text: string) =>
  [...text].map((char) => (/[A-Za-z0-9]/.test(char) ? char : `_${char.codePointAt(0)!.toString(16)}`)).join('');

const valueText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * The OpenAPI document, read in the console: the operations by tag, searchable, each opening to
 * who may call it, its parameters, its request body and its responses with their schemas
 * (references resolved, fields nested). Read-only: requests are not sent from here. The document
 * itself can be downloaded as it is.
 */
export function ApiReference({ spec }: { spec: OpenApiDocument }) {
  const { t } = useTranslation();
  const [query, setQuery] = useState('');
  const [tag, setTag] = useState<string | null>(null);
  const [opened, setOpened] = useState<string[]>([]);
  const search = useDeferredValue(query);
  const operations = useMemo(() => operationsOf(spec), [spec]);
  const groups = useMemo(() => groupByTag(spec, operations, t('settings.api.untagged')), [spec, operations, t]);
  const shown = useMemo(
    () =>
      groups
        .filter((group) => tag === null || group.tag === tag)
        .map((group) => ({ ...group, operations: group.operations.filter((operation) => operationMatches(operation, search)) }))
        .filter((group) => group.operations.length > 0),
    [groups, tag, search],
  );
  const shownCount = new Set(shown.flatMap((group) => group.operations.map((operation) => operation.key))).size;
  const itemOf = (tag: string, operation: ApiOperation) => `op-${idPart(`${tag} ${operation.key}`)}`;
  const operationOfItem = useMemo(
    () =>
      new Map(groups.flatMap((group) => group.operations.map((operation) => [itemOf(group.tag, operation), operation] as const))),
    [groups],
  );

  // an address naming an operation (`#get/ui/order/list`) opens it and shows it at the top
  const anchored = useRef(anchoredKey(window.location.hash));
  useEffect(() => {
    const key = anchored.current;
    const items = [...operationOfItem].filter(([, operation]) => operation.key === key).map(([item]) => item);
    if (items.length === 0) return;
    anchored.current = undefined; // once, on arrival
    setOpened(items);
    requestAnimationFrame(() => document.getElementById(items[0]!)?.scrollIntoView?.({ block: 'start' }));
  }, [operationOfItem]);

  // the operation opened last is named in the address, to be linked to; closing it takes it away
  const openedChanged = (next: string[]) => {
    const added = next.find((item) => !opened.includes(item));
    const current = anchoredKey(window.location.hash);
    const stillOpen = next.some((item) => operationOfItem.get(item)?.key === current);
    setOpened(next);
    const named = added ? operationOfItem.get(added) : undefined;
    if (!named && stillOpen) return;
    const { pathname, search } = window.location;
    window.history.replaceState(window.history.state, '', `${pathname}${search}${named ? `#${operationAnchor(named)}` : ''}`);
  };
  const version = spec.info?.version ?? '';

  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-end" gap="sm">
        <Group align="flex-end" gap="sm">
          <SearchField label={t('settings.api.search')} value={query} onChange={setQuery} />
          <Select
            label={t('settings.api.tag')}
            placeholder={t('settings.api.allTags')}
            data={groups.map((group) => ({ value: group.tag, label: `${group.tag} (${group.operations.length})` }))}
            value={tag}
            onChange={setTag}
            clearable
            searchable
            maw={260}
          />
        </Group>
        <Button
          variant="default"
          leftSection={<IconDownload size={16} aria-hidden />}
          onClick={() =>
            saveText(
              `${JSON.stringify(spec, null, 2)}\n`,
              `manifold-openapi${version ? `-${version}` : ''}.json`,
              'application/json',
            )
          }
        >
          {t('settings.api.download')}
        </Button>
      </Group>
      <Text size="sm" c="dimmed" aria-live="polite" data-testid="api-reference-count">
        {t('settings.api.count', { shown: shownCount, total: operations.length, version })}
      </Text>
      {shown.length === 0 ? <Text>{t('settings.api.noMatch')}</Text> : null}
      {shown.map((group) => (
        <Box component="section" key={group.tag} aria-labelledby={`api-tag-${idPart(group.tag)}`} data-tag={group.tag}>
          <Title order={3} size="h4" id={`api-tag-${idPart(group.tag)}`} mb={4}>
            {group.tag}
          </Title>
          {group.description ? (
            <Text size="sm" c="dimmed" mb="xs">
              {group.description}
            </Text>
          ) : null}
          <Accordion
            multiple
            value={opened}
            onChange={openedChanged}
            variant="contained"
            chevronPosition="left"
            transitionDuration={0}
          >
            {group.operations.map((operation) => {
              const value = itemOf(group.tag, operation);
              return (
                <Accordion.Item key={value} id={value} value={value} data-path={operation.path} data-method={operation.method}>
                  <Accordion.Control>
                    <OperationLine operation={operation} />
                  </Accordion.Control>
                  <Accordion.Panel>
                    {opened.includes(value) ? <OperationDetails spec={spec} operation={operation} /> : null}
                  </Accordion.Panel>
                </Accordion.Item>
              );
            })}
          </Accordion>
        </Box>
      ))}
    </Stack>
  );
}

function OperationLine({ operation }: { operation: ApiOperation }) {
  const color = methodColors[operation.method] ?? 'gray';
  return (
    <Group gap="sm" wrap="nowrap">
      <Badge variant="light" color={color} c={stateText(color)} w={72} style={{ flexShrink: 0 }}>
        {operation.method.toUpperCase()}
      </Badge>
      <Text
        ff="monospace"
        fw={600}
        size="sm"
        td={operation.deprecated ? 'line-through' : undefined}
        style={{ flexShrink: 0, maxWidth: '60%', overflowWrap: 'anywhere' }}
      >
        {operation.path}
      </Text>
      <Text size="sm" c="dimmed" lineClamp={1} miw={0}>
        {operation.summary}
      </Text>
    </Group>
  );
}

function OperationDetails({ spec, operation }: { spec: OpenApiDocument; operation: ApiOperation }) {
  const { t } = useTranslation();
  return (
    <Stack gap="md">
      {operation.summary ? <Text size="sm">{operation.summary}</Text> : null}
      {operation.description ? <Text size="sm">{operation.description}</Text> : null}
      <Stack gap={2}>
        {operation.access ? (
          <Text size="sm">
            <Text span fw={600}>
              {t('settings.api.whoMayCall')}:
            </Text>{' '}
            {t(`settings.api.access.${operation.access}`, { defaultValue: operation.access })}
          </Text>
        ) : null}
        <Text size="sm">
          <Text span fw={600}>
            {t('settings.api.authentication')}:
          </Text>{' '}
          {operation.secured ? t('settings.api.bearer') : t('settings.api.noBearer')}
        </Text>
        {operation.deprecated ? (
          <Text size="sm" c="var(--manifold-warning)">
            {t('settings.api.deprecated')}
          </Text>
        ) : null}
      </Stack>
      {operation.parameters.length > 0 ? (
        <DetailSection title={t('settings.api.parameters')}>
          <Table withTableBorder layout="fixed" verticalSpacing={4}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th w="28%">{t('settings.api.name')}</Table.Th>
                <Table.Th w={90}>{t('settings.api.in')}</Table.Th>
                <Table.Th>{t('settings.api.schema')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {operation.parameters.map((parameter) => (
                <Table.Tr key={`${parameter.in} ${parameter.name}`}>
                  <Table.Td style={{ overflowWrap: 'anywhere' }}>
                    <Group gap={6}>
                      <Text ff="monospace" size="sm" fw={600}>
                        {parameter.name}
                      </Text>
                      {parameter.required ? <RequiredBadge /> : null}
                    </Group>
                  </Table.Td>
                  <Table.Td>{t(`settings.api.location.${parameter.in}`, { defaultValue: parameter.in })}</Table.Td>
                  <Table.Td style={{ overflowWrap: 'anywhere' }}>
                    <SchemaView spec={spec} schema={parameter.schema} description={parameter.description} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </DetailSection>
      ) : null}
      {operation.requestBody ? (
        <DetailSection
          title={`${t('settings.api.requestBody')}${operation.requestBody.required ? ` (${t('settings.api.required')})` : ''}`}
        >
          {operation.requestBody.description ? <Text size="sm">{operation.requestBody.description}</Text> : null}
          <Contents spec={spec} contents={operation.requestBody.contents} />
        </DetailSection>
      ) : null}
      <DetailSection title={t('settings.api.responses')}>
        <Stack gap="sm">
          {operation.responses.map((response) => {
            const color = statusColor(response.status);
            return (
              <Box key={response.status} data-status={response.status}>
                <Group gap="xs" wrap="nowrap" align="flex-start">
                  <Badge variant="light" color={color} c={stateText(color)} style={{ flexShrink: 0 }}>
                    {response.status}
                  </Badge>
                  <Text size="sm">{response.description}</Text>
                </Group>
                {response.contents.length > 0 ? (
                  <Box pl="md" mt={4}>
                    <Contents spec={spec} contents={response.contents} />
                  </Box>
                ) : null}
              </Box>
            );
          })}
        </Stack>
      </DetailSection>
    </Stack>
  );
}

function DetailSection({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Stack gap={6}>
      <Title order={4} size="h6">
        {title}
      </Title>
      {children}
    </Stack>
  );
}

function Contents({ spec, contents }: { spec: OpenApiDocument; contents: ApiContent[] }) {
  return (
    <Stack gap="xs">
      {contents.map((content) => (
        <Box key={content.mediaType}>
          <Text size="xs" c="dimmed" ff="monospace">
            {content.mediaType}
          </Text>
          <SchemaView spec={spec} schema={content.schema} />
        </Box>
      ))}
    </Stack>
  );
}

function RequiredBadge() {
  const { t } = useTranslation();
  return (
    <Badge size="xs" variant="light" color="red" c={stateText('red')} tt="none">
      {t('settings.api.required')}
    </Badge>
  );
}

/** A schema: its type, constraints and description, then its fields (nested objects open one level deep). */
export function SchemaView({
  spec,
  schema,
  description,
}: {
  spec: OpenApiDocument;
  schema: JsonSchema | undefined;
  description?: string;
}) {
  const summary = summarizeSchema(spec, schema);
  return (
    <Stack gap={4}>
      <TypeLine spec={spec} summary={summary} description={description} />
      <SchemaBody spec={spec} summary={summary} open={summary.opens} depth={0} />
    </Stack>
  );
}

function TypeLine({ spec, summary, description }: { spec: OpenApiDocument; summary: SchemaSummary; description?: string }) {
  const { t } = useTranslation();
  const notes = [
    ...summary.constraints.map((constraint) => constraintText(t, spec, constraint)),
    ...(summary.readOnly ? [t('settings.api.readOnly')] : []),
    ...(summary.writeOnly ? [t('settings.api.writeOnly')] : []),
    ...(summary.deprecated ? [t('settings.api.deprecated')] : []),
    ...(summary.recursive ? [t('settings.api.recursive')] : []),
  ];
  const about = description ?? summary.description;
  return (
    <Box>
      <Text size="sm" ff="monospace" c="var(--manifold-info)" span style={{ overflowWrap: 'anywhere' }}>
        {summary.type}
      </Text>
      {notes.length > 0 ? (
        <Text size="xs" c="dimmed" ff="monospace" span style={{ overflowWrap: 'anywhere' }}>
          {'  '}
          {notes.join(' · ')}
        </Text>
      ) : null}
      {about ? <Text size="sm">{about}</Text> : null}
    </Box>
  );
}

function SchemaBody({
  spec,
  summary,
  open,
  depth,
}: {
  spec: OpenApiDocument;
  summary: SchemaSummary;
  open: string[];
  depth: number;
}) {
  const { t } = useTranslation();
  if (summary.recursive) return null;
  return (
    <>
      {summary.fields.length > 0 ? (
        <Box component="ul" m={0} p={0} style={{ listStyle: 'none' }}>
          {summary.fields.map((field) => (
            <FieldRow
              key={field.name}
              spec={spec}
              name={field.name}
              required={field.required}
              schema={field.schema}
              open={open}
              depth={depth}
            />
          ))}
        </Box>
      ) : null}
      {summary.additional !== undefined ? (
        <Text size="xs" c="dimmed">
          {summary.additional === true
            ? t('settings.api.anyFields')
            : t('settings.api.otherFields', { type: typeLabel(spec, summary.additional) })}
        </Text>
      ) : null}
      {summary.variants ? (
        <Stack gap={4}>
          <Text size="xs" fw={600}>
            {t(`settings.api.variants.${summary.variants.kind}`)}
          </Text>
          <Box component="ol" m={0} pl="md">
            {summary.variants.schemas.map((variant, index) => {
              const inner = summarizeSchema(spec, variant, open);
              return (
                <li key={index}>
                  <TypeLine spec={spec} summary={inner} />
                  <SchemaBody spec={spec} summary={inner} open={[...open, ...inner.opens]} depth={depth + 1} />
                </li>
              );
            })}
          </Box>
        </Stack>
      ) : null}
    </>
  );
}

function FieldRow({
  spec,
  name,
  required,
  schema,
  open,
  depth,
}: {
  spec: OpenApiDocument;
  name: string;
  required: boolean;
  schema: JsonSchema;
  open: string[];
  depth: number;
}) {
  const { t } = useTranslation();
  const summary = summarizeSchema(spec, schema, open);
  const nested =
    !summary.recursive &&
    (summary.fields.length > 0 ||
      summary.variants !== undefined ||
      (summary.additional !== undefined && summary.additional !== true));
  const [expanded, setExpanded] = useState(depth < 1);
  return (
    <Box component="li" py={2} data-field={name}>
      <Group gap={6} wrap="wrap" align="baseline">
        <Text ff="monospace" size="sm" fw={600}>
          {name}
        </Text>
        {required ? <RequiredBadge /> : null}
        <TypeLine spec={spec} summary={{ ...summary, description: undefined }} />
        {nested ? (
          <UnstyledButton
            onClick={() => setExpanded((value) => !value)}
            aria-expanded={expanded}
            fz="xs"
            c="var(--manifold-link)"
            td="underline"
          >
            {expanded ? t('settings.api.hideFields', { name }) : t('settings.api.showFields', { name })}
          </UnstyledButton>
        ) : null}
      </Group>
      {summary.description ? (
        <Text size="xs" c="dimmed">
          {summary.description}
        </Text>
      ) : null}
      {nested && expanded ? (
        <Box pl="md" ml={4} style={{ borderLeft: '1px solid var(--mantine-color-default-border)' }}>
          <SchemaBody spec={spec} summary={summary} open={[...open, ...summary.opens]} depth={depth + 1} />
        </Box>
      ) : null}
    </Box>
  );
}

type Translate = ReturnType<typeof useTranslation>['t'];

function boundsText(t: Translate, unit: 'length' | 'items', min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) {
    return min === max ? t(`settings.api.${unit}Exactly`, { count: min }) : t(`settings.api.${unit}Between`, { min, max });
  }
  return max !== undefined ? t(`settings.api.${unit}AtMost`, { count: max }) : t(`settings.api.${unit}AtLeast`, { count: min });
}

function constraintText(t: Translate, spec: OpenApiDocument, constraint: SchemaConstraint): string {
  switch (constraint.kind) {
    case 'enum':
      return `${t('settings.api.oneOfValues')} ${constraint.values.map(valueText).join(', ')}`;
    case 'const':
      return `${t('settings.api.always')} ${valueText(constraint.value)}`;
    case 'format':
      return `${t('settings.api.format')} ${constraint.value}`;
    case 'pattern':
      return `${t('settings.api.pattern')} ${constraint.value}`;
    case 'length':
      return boundsText(t, 'length', constraint.min, constraint.max);
    case 'itemCount':
      return boundsText(t, 'items', constraint.min, constraint.max);
    case 'range':
      return [
        constraint.min !== undefined ? `≥ ${constraint.min}` : '',
        constraint.exclusiveMin !== undefined ? `> ${constraint.exclusiveMin}` : '',
        constraint.max !== undefined ? `≤ ${constraint.max}` : '',
        constraint.exclusiveMax !== undefined ? `< ${constraint.exclusiveMax}` : '',
      ]
        .filter(Boolean)
        .join(', ');
    case 'multipleOf':
      return t('settings.api.multipleOf', { value: constraint.value });
    case 'uniqueItems':
      return t('settings.api.uniqueItems');
    case 'default':
      return `${t('settings.api.default')} ${valueText(constraint.value)}`;
    case 'keys': {
      const keys = summarizeSchema(spec, constraint.schema);
      return [`${t('settings.api.keys')} ${keys.type}`, ...keys.constraints.map((inner) => constraintText(t, spec, inner))].join(
        ' · ',
      );
    }
  }
}
