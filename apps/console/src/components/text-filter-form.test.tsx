import { fireEvent, screen } from '@testing-library/react';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { renderWithProviders } from '../test/render';
import { TextFilterForm } from './text-filter-form';

/** A list's filters in force (as the address gives them), and a way to change them as back and forward do. */
function Harness({ first }: { first: string | undefined }) {
  const [applied, setApplied] = useState<{ dsiId?: string }>(first === undefined ? {} : { dsiId: first });
  return (
    <>
      <TextFilterForm
        title="Filters"
        fields={[{ name: 'dsiId', label: 'Design ID' }]}
        applied={applied}
        onApply={() => {}}
        applyLabel="Apply"
        clearLabel="Clear"
      />
      <button type="button" onClick={() => setApplied({})}>
        to no filter
      </button>
      <button type="button" onClick={() => setApplied({ dsiId: 'abc' })}>
        to abc
      </button>
      <button type="button" onClick={() => setApplied((current) => ({ ...current }))}>
        same again
      </button>
    </>
  );
}

const input = () => screen.getByLabelText<HTMLInputElement>('Design ID');

describe('the text filters of a list', () => {
  it('show the filters in force when the address changes them (back, forward), not the text typed before', () => {
    renderWithProviders(<Harness first="abc" />);
    expect(input().value).toBe('abc');
    fireEvent.change(input(), { target: { value: 'typed, not applied' } });
    fireEvent.click(screen.getByRole('button', { name: 'to no filter' }));
    expect(input().value).toBe('');
    fireEvent.click(screen.getByRole('button', { name: 'to abc' }));
    expect(input().value).toBe('abc');
  });

  it('keep what is typed and not yet applied while the filters in force stay the same', () => {
    renderWithProviders(<Harness first="abc" />);
    fireEvent.change(input(), { target: { value: 'abcd' } });
    fireEvent.click(screen.getByRole('button', { name: 'same again' }));
    expect(input().value).toBe('abcd');
  });
});
