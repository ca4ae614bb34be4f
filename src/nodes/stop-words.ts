/**
 * Stop words: the function words of English, French, German, Spanish, Italian, Portuguese and Dutch, which a
 * search drops from a question so that they decide nothing (src/nodes/search-query.ts).
 *
 * Hand-kept rather than a package's lists: those lists put one language's function words beside words that mean
 * something in another (German `die` and `hat`, Dutch `door`, French `son`, Italian `era` and `dove`), and a
 * dropped word is lost from every query. So a word of another language is listed here only when it is not also
 * an English word; a common one left out costs little, since BM25 weighs a word by how rare it is. English words
 * that can carry the meaning of a question (up, down, over, may, more, …) are left out for the same reason.
 */

const english = `
  a an the this that these those
  i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers
  herself it its itself they them their theirs themselves
  what which who whom whose when where why how
  am is are was were be been being have has had having do does did doing
  can could shall should will would might must ought
  and or but nor if then else than because while whereas although though so
  of to in on at by for with from into onto about as upon via per between through during before after against
  within without toward towards among
  all any both each some such either neither
  not no also just too very there here
  i'm i've i'd i'll you're you've you'd you'll he's he'd he'll she's she'd she'll it's we're we've we'd we'll
  they're they've they'd they'll that's there's here's what's who's where's when's why's how's let's
  isn't aren't wasn't weren't hasn't haven't hadn't don't doesn't didn't can't cannot couldn't won't wouldn't
  shan't shouldn't mustn't
`;

const french = `
  le la les un une des du de et ou est sont au aux dans sur avec ce cet cette ces qui que quoi quel quelle quels
  quelles il elle ils elles je tu nous vous ne pas se sa ses leur leurs ma mes ta tes notre votre nos vos y été
  être avoir ont était étaient comme mais donc ni lui eux moi toi soi sous chez entre où quand comment
  pourquoi très aussi ceci cela ça à
`;

const german = `
  der das dem des ein eine einer einem einen eines und oder aber ist sind waren wird werden wurde wurden haben
  hatte hatten ich du er sie es wir ihr mich mir dich dir sich uns euch ihm ihn ihnen im ins am auf aus bei
  nach von vom zu zum zur für über vor durch gegen ohne um nicht kein keine keinen auch noch wie wo wer wann warum
  welche welcher welches dass daß wenn ob diese dieser dieses diesem diesen jede jeder jedes sehr schon
  doch denn dann mein meine dein deine sein kann muss soll
`;

const spanish = `
  el la los las un una unos unas lo le les y o de del al en por para sobre entre es fue ser estar está están ha
  que qué quien quién cual cuál cuando cuándo donde dónde como cómo porque pero más muy ya ni se su sus mi
  mis tu tus nos yo él ella ellos ellas nosotros este esta estos estas ese eso esto también hasta desde
`;

const italian = `
  il lo la i gli le un una di del della dei degli delle dello da dal dalla in nel nella nei su sul sulla per
  tra fra e ed o ma che cui non è sono essere ha hanno quando perché questo questa questi queste quello quella
  anche più molto tu lui lei noi voi loro mio suo sua ne al alla agli alle
`;

const portuguese = `
  o a as um uma uns umas de do da das em no na nos por pelo pela para e ou mas que quem qual
  quando onde como porque não é são foi ser estar está ter há se seu sua seus suas meu minha ele ela eles
  elas nós você vocês este esta isto esse essa isso aquele aquela também muito mais já até entre sobre ao aos à às
`;

const dutch = `
  de het een en of in aan voor naar bij uit om te dat dit deze wie wat waar wanneer waarom is zijn
  was waren wordt worden werd heeft hebben had ik jij je hij zij ze wij we jullie haar mij mijn niet geen
  ook nog al maar er wel omdat
`;

const stopWords = new Set([english, french, german, spanish, italian, portuguese, dutch].flatMap((list) => list.trim().split(/\s+/)));

/** Whether a word (any case, a typographic apostrophe as `'`) is a stop word. */
export function isStopWord(word: string): boolean {
  return stopWords.has(word.normalize('NFC').toLowerCase().replace(/’/g, "'"));
}
