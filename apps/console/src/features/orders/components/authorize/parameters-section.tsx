import type { Dispatch } from 'react';
import { useTranslation } from 'react-i18next';
import { Section } from '../../../../components/section';
import { ParameterEditor } from '../parameter-editor';
import type { ParameterField } from '../parameter-fields';
import type { AuthorizeAction, AuthorizeState, ParameterGroup } from './authorize-state';

const sections = {
  device: { id: 'authorize-parameters', title: 'orders.authorize.deviceParameters' },
  quality: { id: 'authorize-quality', title: 'orders.authorize.qualityParameters' },
} as const;

export interface ParametersSectionProps {
  group: ParameterGroup;
  fields: readonly ParameterField[];
  state: AuthorizeState;
  dispatch: Dispatch<AuthorizeAction>;
}

/** The device or the quality parameters, each offered inside its parents' bounds. */
export function ParametersSection({ group, fields, state, dispatch }: ParametersSectionProps) {
  const { t } = useTranslation();
  const { id, title } = sections[group];
  return (
    <Section id={id} title={t(title)}>
      <ParameterEditor
        fields={fields}
        values={group === 'device' ? state.deviceValues : state.qualityValues}
        onChange={(key, value) => dispatch({ type: 'parameter', group, key, value })}
        errors={state.errors.fields}
      />
    </Section>
  );
}
