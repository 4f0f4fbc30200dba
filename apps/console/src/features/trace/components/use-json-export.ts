import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { apiErrorMessage } from '../../../components/api-error-message';
import { saveText } from '../../../lib/download';

/**
 * Saves what a call answers as a JSON file (an export button's click); `error` is the last
 * failure's message, shown by the screen, cleared by the next click.
 */
export function useJsonExport() {
  const { t } = useTranslation();
  const [error, setError] = useState<string | null>(null);
  const save = async (fetch: () => Promise<unknown>, fileName: string, type = 'application/json') => {
    setError(null);
    try {
      saveText(JSON.stringify(await fetch(), null, 2), fileName, type);
    } catch (caught) {
      setError(apiErrorMessage(t, caught));
    }
  };
  return { save, error };
}
