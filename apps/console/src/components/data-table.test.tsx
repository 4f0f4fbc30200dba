import { Table } from '@mantine/core';
import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithProviders } from '../test/render';
import { DataTable } from './data-table';

describe('DataTable', () => {
  it('says there is nothing to list in one row whose text stays within the visible width of a wide table', () => {
    renderWithProviders(
      <DataTable caption="Orders: 0" minWidth={1000} columns={['Order', 'Company', 'Created']} empty="No orders yet.">
        {null}
      </DataTable>,
    );
    const text = screen.getByTestId('table-empty');
    expect(text.textContent).toBe('No orders yet.');
    expect(text.closest('td')?.colSpan).toBe(3);
    // as wide as the scroll region (a container), held at its start while the columns scroll
    expect(text.style.position).toBe('sticky');
    expect(text.style.width).toBe('100cqi');
    const region = screen.getByRole('region', { name: 'Orders: 0' });
    expect(region.closest<HTMLElement>('[style*="container-type"]')?.style.getPropertyValue('container-type')).toBe(
      'inline-size',
    );
  });

  it('shows no such row, and no container, when there are rows', () => {
    const { container } = renderWithProviders(
      <DataTable caption="Orders: 1" minWidth={1000} columns={['Order']} empty={null}>
        <Table.Tr>
          <Table.Td>PO-1</Table.Td>
        </Table.Tr>
      </DataTable>,
    );
    expect(screen.queryByTestId('table-empty')).toBeNull();
    expect(container.querySelector('[style*="container-type"]')).toBeNull();
  });
});
