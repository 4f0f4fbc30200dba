import { MantineProvider, TextInput } from '@mantine/core';
import { useId } from '@mantine/hooks';
import { act, render, renderHook, screen } from '@testing-library/react';
import { Profiler } from 'react';
import { describe, expect, it } from 'vitest';

describe("Mantine's useId", () => {
  it("is React's id, the same on every render, or the id given", () => {
    const { result, rerender } = renderHook(() => useId());
    const first = result.current;
    expect(first).toMatch(/^mantine-/);
    rerender();
    expect(result.current).toBe(first);
    expect(renderHook(() => useId('login-username')).result.current).toBe('login-username');
  });

  it('renders an input once when it mounts, its label tied to it', () => {
    const commits: string[] = [];
    act(() => {
      render(
        <MantineProvider env="test">
          <Profiler id="input" onRender={(_id, phase) => commits.push(phase)}>
            <TextInput label="Username" />
          </Profiler>
        </MantineProvider>,
      );
    });
    expect(commits).toEqual(['mount']);
    const input = screen.getByLabelText('Username');
    expect(input.id).toMatch(/^mantine-/);
  });
});
