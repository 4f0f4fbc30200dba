import type { Dispatch } from 'react';
import { Section } from '../../../../components/section';
import { ParameterEditor } from '../parameter-editor';
import type { ParameterField } from '../parameter-fields';
import type { AuthorizeAction, AuthorizeState, ParameterGroup } from './authorize-state';

export interface ParametersSectionProps {
  id: string;
  title: string;
  group: ParameterGroup;
  fields: readonly ParameterField[];
  state: AuthorizeState;
  dispatch: Dispatch<AuthorizeAction>;
}

/** The device or the quality parameters, each offered inside its parents' bounds. */
export function ParametersSection({ id, title, group, fields, state, dispatch }: ParametersSectionProps) {
  return (
    <Section id={id} title={title}>
      <ParameterEditor
        fields={fields}
        values={group === 'device' ? state.deviceValues : state.qualityValues}
        onChange={(key, value) => dispatch({ type: 'parameter', group, key, value })}
        errors={state.errors.fields}
      />
    </Section>
  );
}
