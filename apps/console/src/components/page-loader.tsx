import { Center, Loader } from '@mantine/core';
import { useTranslation } from 'react-i18next';

export function PageLoader() {
  const { t } = useTranslation();
  return (
    <Center mih="50vh">
      {/* a status: an aria-label alone is not allowed on the loader's element, which has no role */}
      <Loader color="green" role="status" aria-label={t('common.loading')} />
    </Center>
  );
}
