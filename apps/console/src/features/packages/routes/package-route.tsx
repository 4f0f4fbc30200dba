import { Anchor, Badge, Button, Card, Group, Stack, Tabs, Title } from '@mantine/core';
import { IconArrowLeft, IconTrash } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { apiErrorMessage } from '../../../components/api-error-message';
import { PageHead } from '../../../components/page-head';
import { PageLoader } from '../../../components/page-loader';
import { alerts } from '../../../lib/alerts';
import { roleCan, sessionQueryOptions } from '../../../lib/session';
import { useDeletePackage } from '../api/delete-package';
import { useDeviceTemplates } from '../api/get-device-templates';
import { usePackage } from '../api/get-package';
import { DeviceTemplates } from '../components/device-templates';
import { PackageBuilds } from '../components/package-builds';
import { PackageDetailsForm } from '../components/package-details-form';
import { PackageFiles } from '../components/package-files';
import { WorkflowSteps } from '../components/workflow-steps';
import { useConfirm } from '../../../components/confirm-modal';
import { ErrorAlert } from '../../../components/error-alert';

const tabs = ['details', 'steps', 'files', 'templates', 'builds'] as const;
type Tab = (typeof tabs)[number];

function isTab(value: string | null): value is Tab {
  return tabs.some((tab) => tab === value);
}

/** The package editor: details, workflow steps, files, device templates, builds. */
export function PackageRoute() {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const { dsiId = '' } = useParams();
  const navigate = useNavigate();
  const [searchParams, setSearchParams] = useSearchParams();
  const requested = searchParams.get('tab');
  const tab: Tab = isTab(requested) ? requested : 'details';
  const session = useQuery(sessionQueryOptions());
  const canEdit = roleCan(session.data?.userProfile.role, 'POST /ui/package/info');
  const pkg = usePackage(dsiId);
  const library = useDeviceTemplates();
  const remove = useDeletePackage();
  const [formKey, setFormKey] = useState(0);
  const [deleteError, setDeleteError] = useState<string | null>(null);

  if (pkg.error) {
    return (
      <Stack>
        <PageHead title={t('packages.title')} />
        <Anchor component={Link} to="/packages" size="sm" c="var(--manifold-link)">
          <IconArrowLeft size={14} aria-hidden /> {t('packages.back')}
        </Anchor>
        <ErrorAlert>{apiErrorMessage(t, pkg.error)}</ErrorAlert>
      </Stack>
    );
  }
  if (!pkg.data) return <PageLoader />;
  const detail = pkg.data;
  const templates = [...detail.deviceTemplates, ...(library.data?.data ?? []).filter((template) => template.dsiId === null)];

  const confirmDelete = () => {
    confirm({
      title: t('packages.deleteTitle'),
      message: t('packages.deleteConfirm', { name: detail.designName }),
      onConfirm: () => {
        setDeleteError(null);
        remove.mutate(
          { dsiId: detail.dsiId },
          {
            onSuccess: () => {
              alerts.success(t('packages.deleted', { name: detail.designName }));
              void navigate('/packages');
            },
            onError: (error) => setDeleteError(apiErrorMessage(t, error)),
          },
        );
      },
    });
  };

  return (
    <Stack gap="lg">
      <PageHead title={detail.designName} description={t('packages.editorDescription')} />
      <Anchor component={Link} to="/packages" size="sm" c="var(--manifold-link)">
        <IconArrowLeft size={14} aria-hidden /> {t('packages.back')}
      </Anchor>
      <Group justify="space-between" align="flex-start">
        <Stack gap={4}>
          <Title order={1}>{detail.designName}</Title>
          <Group gap="xs">
            <Badge variant="light" color="gray" c="var(--manifold-text)">
              {t('packages.versionBadge', { version: detail.version })}
            </Badge>
            <Badge
              variant="light"
              color={detail.latestDsiVersion === null ? 'gray' : 'green'}
              c={detail.latestDsiVersion === null ? 'var(--manifold-text)' : 'var(--manifold-success)'}
            >
              {detail.latestDsiVersion === null
                ? t('packages.notBuilt')
                : t('packages.buildNumber', { number: detail.latestDsiVersion })}
            </Badge>
          </Group>
        </Stack>
        {canEdit ? (
          <Button variant="default" color="red" leftSection={<IconTrash size={16} aria-hidden />} onClick={confirmDelete}>
            {t('packages.delete')}
          </Button>
        ) : null}
      </Group>
      {deleteError ? <ErrorAlert>{deleteError}</ErrorAlert> : null}
      <Tabs
        value={tab}
        onChange={(value) => {
          if (isTab(value)) setSearchParams(value === 'details' ? {} : { tab: value }, { replace: true });
        }}
        keepMounted={false}
      >
        <Tabs.List>
          <Tabs.Tab value="details">{t('packages.tabs.details')}</Tabs.Tab>
          <Tabs.Tab value="steps">{t('packages.tabs.steps', { count: detail.steps.length })}</Tabs.Tab>
          <Tabs.Tab value="files">{t('packages.tabs.files', { count: detail.files.length })}</Tabs.Tab>
          <Tabs.Tab value="templates">{t('packages.tabs.templates', { count: detail.deviceTemplates.length })}</Tabs.Tab>
          <Tabs.Tab value="builds">{t('packages.tabs.builds', { count: detail.revisions.length })}</Tabs.Tab>
        </Tabs.List>
        <Card withBorder mt="md" padding="lg">
          <Tabs.Panel value="details">
            <PackageDetailsForm
              key={`${detail.dsiId}-${formKey}`}
              pkg={detail}
              readOnly={!canEdit}
              onSaved={(saved) => alerts.success(t('packages.details.saved', { name: saved.designName, version: saved.version }))}
              onReload={() => {
                void pkg.refetch().then(() => setFormKey((key) => key + 1));
              }}
            />
          </Tabs.Panel>
          <Tabs.Panel value="steps">
            <WorkflowSteps dsiId={detail.dsiId} steps={detail.steps} templates={templates} canEdit={canEdit} />
          </Tabs.Panel>
          <Tabs.Panel value="files">
            <PackageFiles dsiId={detail.dsiId} files={detail.files} canEdit={canEdit} />
          </Tabs.Panel>
          <Tabs.Panel value="templates">
            <DeviceTemplates dsiId={detail.dsiId} templates={detail.deviceTemplates} canEdit={canEdit} />
          </Tabs.Panel>
          <Tabs.Panel value="builds">
            <PackageBuilds dsiId={detail.dsiId} revisions={detail.revisions} canEdit={canEdit} />
          </Tabs.Panel>
        </Card>
      </Tabs>
    </Stack>
  );
}
