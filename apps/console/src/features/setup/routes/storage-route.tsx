import { Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ListHeader } from '../../../components/list-header';
import { TitledPageBody } from '../../../components/page-title';
import { StorageSettings } from '../components/storage-settings';

/** Admin storage settings: provider, storage types, design archive service (at `/storage` and in Settings). */
export function StorageRoute() {
  const { t } = useTranslation();
  return (
    <Stack gap="lg" maw={960}>
      <ListHeader title={t('storage.title')} description={t('storage.description')} />
      <TitledPageBody>
        <StorageSettings />
      </TitledPageBody>
    </Stack>
  );
}
