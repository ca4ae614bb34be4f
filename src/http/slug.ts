/**
 * URL slug of a title: lowercase, accents folded to ASCII (NFKD, combining marks dropped), every run of
 * other characters replaced by one '-', leading/trailing '-' trimmed.
 * 'Quarterly Launch Plan!' → 'quarterly-launch-plan'. May return '' when the title has no ASCII letters or
 * digits; callers decide what to do then.
 */
export function slugify(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
