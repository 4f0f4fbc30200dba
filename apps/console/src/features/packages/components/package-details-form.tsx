import { Button, FileButton, Group, Image, Stack, Switch, Text, TextInput, Textarea } from '@mantine/core';
import type { TPackage } from '@manifold/contract';
import { IconPhoto, IconRefresh, IconTrash } from '@tabler/icons-react';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { formErrorsFrom, type FormErrors, withoutFieldError } from '../../../components/api-error-message';
import { useFields } from '../../../hooks/use-fields';
import { isApiError } from '../../../lib/api-errors';
import { useAuthorizedImage } from '../../../lib/authorized-image';
import { useSavePackage } from '../api/save-package';
import { TitledErrorAlert } from '../../../components/error-alert';
import { FormGeneralErrors } from '../../../components/form-fields';

const noErrors: FormErrors = { fields: {}, general: [] };
const fieldNames = ['designName', 'description', 'companyName', 'multiPlaten', 'displayImage'] as const;
const fieldOfToken: Record<string, string> = {
  packageDesignNameEmpty: 'designName',
  packageDisplayImageInvalid: 'displayImage',
};
const imageTypes = ['image/png', 'image/jpeg', 'image/webp'];

function readDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('The file cannot be read'));
    reader.readAsDataURL(file);
  });
}

function initialValues(pkg: TPackage | undefined) {
  return {
    designName: pkg?.designName ?? '',
    description: pkg?.description ?? '',
    companyName: pkg?.companyName ?? '',
    multiPlaten: pkg?.multiPlaten ?? false,
  };
}

/** A new image (data URL), the removal of the current one (null), or no change (undefined). */
type ImageChange = string | null | undefined;

export interface PackageDetailsFormProps {
  /** The package to edit; absent to create one. */
  pkg?: TPackage;
  readOnly?: boolean;
  onSaved: (pkg: TPackage) => void;
  /** Discards local edits and shows the newest version (after a version conflict). */
  onReload?: () => void;
  onCancel?: () => void;
}

/** Design name, description, company, multi-platen and display image, with optimistic versioning. */
export function PackageDetailsForm({ pkg, readOnly = false, onSaved, onReload, onCancel }: PackageDetailsFormProps) {
  const { t } = useTranslation();
  const { values, setField } = useFields(initialValues(pkg), (field) =>
    setErrors((current) => withoutFieldError(current, field)),
  );
  const [image, setImage] = useState<ImageChange>(undefined);
  const [errors, setErrors] = useState<FormErrors>(noErrors);
  const [conflict, setConflict] = useState(false);
  const save = useSavePackage();
  const currentImage = useAuthorizedImage('GET /ui/package/image/:image', pkg?.displayImage);
  const shownImage = image === undefined ? currentImage : (image ?? undefined);

  const chooseImage = async (file: File | null) => {
    if (!file) return;
    if (!imageTypes.includes(file.type)) {
      setErrors({ fields: { displayImage: t('packages.details.imageType') }, general: [] });
      return;
    }
    setImage(await readDataUrl(file));
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setErrors(noErrors);
    setConflict(false);
    save.mutate(
      {
        ...(pkg ? { dsiId: pkg.dsiId, version: pkg.version } : {}),
        ...values,
        ...(image !== undefined ? { displayImage: image } : {}),
      },
      {
        onSuccess: (saved) => {
          setImage(undefined);
          onSaved(saved);
        },
        onError: (error) => {
          if (isApiError(error) && error.errorToken === 'packageVersionConflict') {
            setConflict(true);
            return;
          }
          setErrors(formErrorsFrom(t, error, fieldNames, fieldOfToken));
        },
      },
    );
  };

  return (
    <form onSubmit={submit} noValidate aria-label={pkg ? t('packages.details.heading') : t('packages.createTitle')}>
      <Stack>
        {conflict ? (
          <TitledErrorAlert title={t('packages.details.conflictTitle')} data-testid="version-conflict">
            <Stack gap="xs">
              <Text size="sm">{t('packages.details.conflict', { version: pkg?.version ?? 0 })}</Text>
              {onReload ? (
                <Group>
                  <Button size="xs" variant="default" leftSection={<IconRefresh size={14} aria-hidden />} onClick={onReload}>
                    {t('packages.details.reload')}
                  </Button>
                </Group>
              ) : null}
            </Stack>
          </TitledErrorAlert>
        ) : null}
        <FormGeneralErrors errors={errors} />
        <TextInput
          label={t('packages.fields.designName')}
          withAsterisk
          readOnly={readOnly}
          value={values.designName}
          error={errors.fields.designName}
          onChange={(event) => setField('designName', event.currentTarget.value)}
        />
        <TextInput
          label={t('packages.fields.companyName')}
          readOnly={readOnly}
          value={values.companyName}
          error={errors.fields.companyName}
          onChange={(event) => setField('companyName', event.currentTarget.value)}
        />
        <Textarea
          label={t('packages.fields.description')}
          autosize
          minRows={3}
          readOnly={readOnly}
          value={values.description}
          error={errors.fields.description}
          onChange={(event) => setField('description', event.currentTarget.value)}
        />
        <Switch
          label={t('packages.fields.multiPlaten')}
          disabled={readOnly}
          checked={values.multiPlaten}
          error={errors.fields.multiPlaten}
          onChange={(event) => setField('multiPlaten', event.currentTarget.checked)}
        />
        <Stack gap={6}>
          <Text size="sm" fw={500}>
            {t('packages.fields.displayImage')}
          </Text>
          {shownImage ? (
            <Image src={shownImage} alt={t('packages.details.imageAlt')} maw={240} radius="sm" data-testid="package-image" />
          ) : (
            <Text size="sm" c="dimmed">
              {t('packages.details.noImage')}
            </Text>
          )}
          {readOnly ? null : (
            <Group gap="xs">
              <FileButton onChange={(file) => void chooseImage(file)} accept={imageTypes.join(',')}>
                {(props) => (
                  <Button {...props} size="xs" variant="default" leftSection={<IconPhoto size={14} aria-hidden />}>
                    {t('packages.details.chooseImage')}
                  </Button>
                )}
              </FileButton>
              {shownImage ? (
                <Button
                  size="xs"
                  variant="subtle"
                  color="var(--manifold-danger)"
                  leftSection={<IconTrash size={14} aria-hidden />}
                  onClick={() => setImage(null)}
                >
                  {t('packages.details.removeImage')}
                </Button>
              ) : null}
            </Group>
          )}
          {errors.fields.displayImage ? (
            <Text size="sm" c="var(--manifold-danger)" role="alert">
              {errors.fields.displayImage}
            </Text>
          ) : null}
        </Stack>
        {readOnly ? null : (
          <Group justify="flex-end">
            {onCancel ? (
              <Button variant="default" onClick={onCancel}>
                {t('common.cancel')}
              </Button>
            ) : null}
            <Button type="submit" loading={save.isPending}>
              {pkg ? t('common.save') : t('packages.create')}
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}
