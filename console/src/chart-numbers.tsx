/** A chart's numbers as a table behind "Show the numbers": what a screen reader reads instead of the canvas. */
export function ChartNumbers({ headings, rows }: { headings: readonly string[]; rows: ReadonlyArray<ReadonlyArray<string | number>> }) {
  return (
    <details>
      <summary>Show the numbers</summary>
      <table>
        <thead>
          <tr>
            {headings.map((heading) => (
              <th scope="col" key={heading}>
                {heading}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.join('|')}>
              {row.map((cell, index) => (
                <td key={index}>{cell}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
