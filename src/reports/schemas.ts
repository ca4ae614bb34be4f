import { type Static, Type } from '@sinclair/typebox';
import { Nullable, named } from '../api/common-schemas.js';

/** Response schemas of the report endpoints; the types below are derived from them. */

const ParamValue = Nullable(Type.Union([Type.String(), Type.Number(), Type.Boolean()]));

export const ReportSummarySchema = Type.Object({
  name: Type.String(),
  title: Type.String(),
  description: Type.String(),
  path: Type.String({ description: 'Where to run it (GET)' }),
  parameters: Type.Array(
    Type.Object({
      name: Type.String(),
      type: Type.Union([Type.Literal('integer'), Type.Literal('string'), Type.Literal('boolean'), Type.Literal('date'), Type.Literal('month')]),
      description: Type.String(),
      required: Type.Boolean(),
      default: Type.Optional(ParamValue),
      minimum: Type.Optional(Type.Integer()),
      maximum: Type.Optional(Type.Integer()),
      values: Type.Optional(Type.Array(Type.String())),
    }),
  ),
  columns: Type.Array(Type.String()),
});

/** What every report answers (each report is an operation of its own). */
export const ReportResultSchema = named('ReportResult', Type.Object({
  report: Type.String(),
  parameters: Type.Record(Type.String(), ParamValue, { description: 'Every parameter as the report ran with it, defaults included' }),
  columns: Type.Array(Type.String()),
  rows: Type.Array(Type.Array(Type.Unknown()), { description: 'One array per row, in the order of columns' }),
  rowCount: Type.Integer({ minimum: 0 }),
}));

export type ReportParamValue = Static<typeof ParamValue>;
export type ReportSummary = Static<typeof ReportSummarySchema>;
export type ReportResult = Static<typeof ReportResultSchema>;
