import { Stack, Table } from '@mantine/core';
import type { TTrustedIssuer } from '@manifold/contract';
import { IconTrash } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage, formErrorsFrom, type FormErrors, withoutFieldError } from '../../../components/api-error-message';
import { useConfirm } from '../../../components/confirm-modal';
import { DataTable } from '../../../components/data-table';
import { ErrorAlert } from '../../../components/error-alert';
import { FormButtons } from '../../../components/form-buttons';
import { FormGeneralErrors, FormTextInput } from '../../../components/form-fields';
import { FormModal } from '../../../components/form-modal';
import { IconAction } from '../../../components/icon-action';
import { ListHeader } from '../../../components/list-header';
import { ListPagination } from '../../../components/list-pagination';
import { useFields } from '../../../hooks/use-fields';
import { alerts } from '../../../lib/alerts';
import { pageCount } from '../../../lib/paging';
import { useAddTrustedIssuer, useDeleteTrustedIssuer, useTrustedIssuers } from '../api/trusted-issuers';
import { usePagedSearch, usePageInRange } from '../../../hooks/use-paged-search';

const pageSize = 10;

function TrustedIssuerForm({ onDone, onCancel }: { onDone: (issuer: TTrustedIssuer) => void; onCancel: () => void }) {
  const { t } = useTranslation();
  const { values, setField } = useFields({ issuer: '', jwkSetUri: '' }, (field) =>
    setErrors((current) => withoutFieldError(current, field)),
  );
  const [errors, setErrors] = useState<FormErrors>({ fields: {}, general: [] });
  const add = useAddTrustedIssuer();
  const form = { values, setField, errors };
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setErrors({ fields: {}, general: [] });
    add.mutate(values, {
      onSuccess: onDone,
      onError: (error) =>
        setErrors(formErrorsFrom(t, error, ['issuer', 'jwkSetUri'], { issuerEmpty: 'issuer', jwkSetUriEmpty: 'jwkSetUri' })),
    });
  };
  return (
    <form onSubmit={submit} noValidate aria-label={t('identity.issuers.addTitle')}>
      <Stack>
        <FormGeneralErrors errors={errors} />
        <FormTextInput form={form} field="issuer" label={t('identity.issuers.issuer')} withAsterisk />
        <FormTextInput form={form} field="jwkSetUri" label={t('identity.issuers.jwkSetUri')} withAsterisk />
        <FormButtons onCancel={onCancel} pending={add.isPending} />
      </Stack>
    </form>
  );
}

/** Authentication servers (ADMIN): issuers whose JWTs the API accepts (`authentication/*`). */
export function TrustedIssuersRoute() {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const paging = usePagedSearch();
  const { page, setPage } = paging;
  const [adding, setAdding] = useState(false);
  const issuers = useTrustedIssuers({ pageNum: page, numberOfItems: pageSize });
  usePageInRange(paging, issuers);
  const remove = useDeleteTrustedIssuer();

  const confirmDelete = (issuer: TTrustedIssuer) =>
    confirm({
      title: t('identity.issuers.deleteTitle'),
      message: t('identity.issuers.deleteConfirm', { issuer: issuer.issuer }),
      onConfirm: () =>
        remove.mutate(
          { issuer: issuer.issuer },
          {
            onSuccess: () => alerts.success(t('identity.issuers.deleted', { issuer: issuer.issuer })),
            onError: (error) => alerts.error(apiErrorMessage(t, error)),
          },
        ),
    });

  return (
    <Stack gap="lg">
      <ListHeader
        title={t('identity.issuers.title')}
        description={t('identity.issuers.description')}
        add={{ label: t('identity.issuers.add'), onClick: () => setAdding(true) }}
      />
      {issuers.error ? <ErrorAlert>{apiErrorMessage(t, issuers.error)}</ErrorAlert> : null}
      <DataTable
        testId="trusted-issuers-table"
        minWidth={640}
        busy={issuers.isFetching}
        caption={t('identity.issuers.caption', { count: issuers.data?.totalNumOfItems ?? 0 })}
        columns={[t('identity.issuers.issuer'), t('identity.issuers.jwkSetUri'), t('common.actions')]}
        empty={issuers.data?.data.length === 0 ? t('identity.issuers.empty') : null}
      >
        {(issuers.data?.data ?? []).map((issuer) => (
          <Table.Tr key={issuer.issuer} data-issuer={issuer.issuer}>
            <Table.Td>{issuer.issuer}</Table.Td>
            <Table.Td>{issuer.jwkSetUri}</Table.Td>
            <Table.Td>
              <IconAction
                tooltip={t('common.delete')}
                label={t('identity.issuers.deleteOne', { issuer: issuer.issuer })}
                icon={IconTrash}
                color="red"
                onClick={() => confirmDelete(issuer)}
              />
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      <ListPagination total={pageCount(issuers.data)} value={page} onChange={setPage} />
      <FormModal opened={adding} onClose={() => setAdding(false)} title={t('identity.issuers.addTitle')}>
        {adding ? (
          <TrustedIssuerForm
            onCancel={() => setAdding(false)}
            onDone={(issuer) => {
              alerts.success(t('identity.issuers.added', { issuer: issuer.issuer }));
              setAdding(false);
            }}
          />
        ) : null}
      </FormModal>
    </Stack>
  );
}
